/**
 * The shape of one entry of the route table (shared/routes/mod.ts): plain data and zod schemas, read by the client,
 * the server's validation, the hostile-input audit and the OpenAPI document (shared/openapi.ts).
 */
import type * as z from "zod";
import { ErrorBody } from "../schemas/common.ts";
import type { Role } from "../schemas/operator.ts";
import type { Scope } from "../schemas/api_token.ts";

/** Every path of the table is under this prefix. */
export const API_PREFIX = "/api/v1";

export type Method = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * public: no token; operator: a bearer token from POST login; device: the fleet's DEVICE_API_KEY as bearer; ddi:
 * hawkBit DDI's `TargetToken <device token>` or `GatewayToken <DEVICE_API_KEY>` (docs/REQUIREMENTS.md §18).
 */
export type Auth = "public" | "operator" | "device" | "ddi";

export type RequestBody =
  | { kind: "none" }
  | { kind: "json"; schema: z.ZodType }
  /** One file in the multipart/form-data field `field`, streamed. */
  /** `fileExtension` is the main one (tests name files with it); `others` are accepted too. */
  | { kind: "multipart"; field: string; fileExtension: string; others?: readonly string[] }
  /**
   * One file as the whole body (application/octet-stream), streamed; its name is the path parameter `name`, and the
   * text fields the multipart form would carry are the headers `fieldHeaders` names (field -> header).
   */
  | {
    kind: "raw";
    fileExtension: string;
    others?: readonly string[];
    fieldHeaders: Readonly<Record<string, string>>;
  };

/** Header name -> what it carries (documentation, e.g. for an OpenAPI description). */
export type HeaderDocs = Readonly<Record<string, string>>;

export type Answer =
  | { kind: "json"; schema: z.ZodType; headers?: HeaderDocs }
  /** No body (204 No Content, 304 Not Modified, or any answer to HEAD). */
  | { kind: "empty" }
  /** Raw bytes of `contentType` (`image/*`: the type stored with the image). */
  | { kind: "binary"; contentType: string };

export interface Route {
  /** Stable name: the client method and the OpenAPI operationId. */
  name: string;
  method: Method;
  /** Under API_PREFIX (at the server root when `root`), with `:name` parameters, e.g. `/devices/:deviceId`. */
  path: string;
  /** The path is at the server root, not under API_PREFIX (hawkBit DDI, docs/REQUIREMENTS.md §18). */
  root?: true;
  auth: Auth;
  /**
   * The least role an operator route needs (docs/REQUIREMENTS.md §12): default viewer for GET and HEAD, operator for writes. A
   * role below it is 403 forbidden.
   */
  role?: Role;
  /**
   * The scope an API token needs for this route (docs/REQUIREMENTS.md §12), beside `role` so the table is the one source of both:
   * default `read` for GET and HEAD; `null` (the default for writes) means no API token may call it, whatever its
   * scopes (operator and token management, password changes, and any write not given a scope yet). A write scope
   * includes `read`. The owner's current role is checked too, on every request.
   */
  scope?: Scope | null;
  summary: string;
  /** Path parameters and the query arrive as text: these schemas parse an object of strings. */
  params?: z.ZodObject;
  query?: z.ZodObject;
  /** Request headers the route reads beyond auth and content type (the server parses If-Match with ifMatchOf). */
  headers?: HeaderDocs;
  body: RequestBody;
  /** Status -> answer; every status a route may answer, errors included. */
  answers: Readonly<Record<number, Answer>>;
}

export const json = <S extends z.ZodType>(
  schema: S,
  headers?: HeaderDocs,
): { readonly kind: "json"; readonly schema: S; readonly headers?: HeaderDocs } =>
  headers ? { kind: "json", schema, headers } : { kind: "json", schema };
export const empty = { kind: "empty" } as const;

/** The answers of a file download's HEAD route: its GET's statuses, each without a body. */
export const headAnswers = {
  200: empty,
  206: empty,
  302: empty,
  304: empty,
  400: empty,
  401: empty,
  404: empty,
  416: empty,
  429: empty,
  503: empty,
} as const;
export const binary = (contentType: string) => ({ kind: "binary", contentType }) as const;
export const noBody = { kind: "none" } as const;
export const rawFile = (
  fileExtension: string,
  others: readonly string[],
  fieldHeaders: Readonly<Record<string, string>>,
) => ({ kind: "raw", fileExtension, others, fieldHeaders }) as const;
export const multipart = (fileExtension: string, field = "file", others: readonly string[] = []) =>
  ({ kind: "multipart", field, fileExtension, others }) as const;

/** The request header of a conditional write: a stale tag is 412 precondition_failed and nothing changes. */
export const ifMatch: HeaderDocs = {
  "If-Match": "Optional. * or entity tags (the ETag or `etag` of the version the change was made on): when none is " +
    "the current one, 412 precondition_failed and nothing changes. Weak tags never match; a malformed value is 400.",
};

/** The answer header of a versioned entity. */
export const etagHeader: HeaderDocs = {
  "ETag": "The strong entity tag of the version answered (the same as its `etag` member); send it as If-Match.",
};

/** The error statuses given, each answered with {error, msg}. */
export function errors<const S extends readonly number[]>(...statuses: S): Record<S[number], ReturnType<typeof json>> {
  const out = {} as Record<number, ReturnType<typeof json>>;
  for (const s of statuses) out[s] = json(ErrorBody);
  return out as Record<S[number], ReturnType<typeof json>>;
}

/** Keeps an entry's literal types (method, answers, schemas) while checking it is a Route. */
export const route = <const R extends Route>(r: R): R => r;

/** The path a route is served at: under API_PREFIX, or at the server root. */
export const servedPath = (r: Pick<Route, "path" | "root">): string => r.root ? r.path : `${API_PREFIX}${r.path}`;

/** The names of a path's parameters, in order: `/device/:deviceId/config` -> ["deviceId"]. */
export function paramNames(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]);
}

/** The path with its parameters filled in, each URI-encoded: `/devices/dev%20001`. */
export function fillPath(path: string, params: Record<string, string> = {}): string {
  return path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${path}: the path parameter ${name} is missing.`);
    return encodeURIComponent(value);
  });
}

/** The statuses of an answer that are not failures: 2xx, and the route's own 3xx (a 304 is an answer). */
export function answerStatuses(r: Route): number[] {
  return Object.keys(r.answers).map(Number).filter((s) => s < 400);
}

/** The least role an operator route needs: its own, else viewer for reads and operator for writes. */
export const requiredRole = (r: Pick<Route, "method" | "role">): Role =>
  r.role ?? (r.method === "GET" || r.method === "HEAD" ? "viewer" : "operator");

/** The scope an API token needs for a route (see Route.scope); null: no token may call it. */
export const requiredScope = (r: Pick<Route, "method" | "scope">): Scope | null =>
  r.scope !== undefined ? r.scope : r.method === "GET" || r.method === "HEAD" ? "read" : null;

/** True when a token holding `scopes` may call a route needing `need` (a write scope includes read). */
export const scopesAllow = (scopes: readonly Scope[], need: Scope | null): boolean =>
  need !== null && (need === "read" ? scopes.length > 0 : scopes.includes(need));
