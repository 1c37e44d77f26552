/**
 * The OpenAPI 3.1 description of /api/v1, generated from the route table (shared/routes/): the same zod schemas the
 * server validates requests with and the client parses answers with, so the document cannot drift from either. Why
 * not @hono/zod-openapi: docs/DECISIONS.md, "The API description".
 */
import * as z from "zod";
import { type Answer, json, requiredRole, requiredScope, type Route, servedPath } from "./routes/route.ts";
import { ErrorBody } from "./schemas/common.ts";

type JsonSchema = Record<string, unknown>;

const STATUS_TEXT: Record<number, string> = {
  200: "OK",
  201: "Created",
  204: "No Content",
  206: "Partial Content",
  302: "Found: the firmware is downloaded from the Location (a presigned URL of the bucket)",
  304: "Not Modified",
  400: "Bad request: the message says what is wrong",
  403: "Forbidden: the signed-in operator's role, or the API token's scopes, do not allow this; nothing changed",
  401: "Unauthorized: no valid bearer token",
  404: "Not found",
  408: "The upload body stalled",
  409: "Conflict with what is stored",
  411: "Length required: an upload must declare its Content-Length",
  412: "Precondition failed: If-Match names a version that is no longer current; nothing changed",
  413: "Too large",
  415: "Unsupported media type or file",
  416: "Range not satisfiable",
  422: "Unprocessable: the firmware is not a valid xz file or SWUpdate image",
  429: "Too many requests: wait as Retry-After says",
  500: "Something went wrong on the server; the request changed nothing",
  503: "Unavailable: a store cannot be reached, or the feature is not configured; retry later",
  507: "Insufficient storage: the server's disk is full; nothing was stored",
};

/** A zod schema as JSON Schema (draft 2020-12, which OpenAPI 3.1 uses); `io` picks the parsed input or the output. */
function schemaOf(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const out = z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" }) as JsonSchema;
  delete out.$schema;
  return out;
}

const openApiPath = (r: Route) => servedPath(r).replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, "{$1}");

function parameters(r: Route): unknown[] {
  const list: unknown[] = [];
  const add = (obj: z.ZodObject | undefined, where: "path" | "query") => {
    if (!obj) return;
    const json = schemaOf(obj, "input") as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, schema] of Object.entries(json.properties ?? {})) {
      const { description, ...rest } = schema;
      list.push({
        name,
        in: where,
        required: where === "path" || (json.required ?? []).includes(name),
        ...(description ? { description } : {}),
        schema: rest,
      });
    }
  };
  add(r.params, "path");
  add(r.query, "query");
  for (const [name, description] of Object.entries(r.headers ?? {})) {
    list.push({ name, in: "header", required: false, description, schema: { type: "string" } });
  }
  return list;
}

function requestBody(r: Route): unknown {
  const body = r.body;
  if (body.kind === "none") return undefined;
  if (body.kind === "json") {
    return { required: true, content: { "application/json": { schema: schemaOf(body.schema, "input") } } };
  }
  const formats = [body.fileExtension, ...(body.others ?? [])].join(" or ");
  if (body.kind === "raw") {
    return {
      required: true,
      description: `One file (${formats}) as the whole body, with a Content-Length (a chunked body is 411).`,
      content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } },
    };
  }
  return {
    required: true,
    description: `One file (${formats}) in the field '${body.field}', with a Content-Length (a chunked ` +
      "body is 411).",
    content: {
      "multipart/form-data": {
        schema: {
          type: "object",
          required: [body.field],
          properties: { [body.field]: { type: "string", contentMediaType: "application/octet-stream" } },
        },
      },
    },
  };
}

function response(status: number, answer: Answer): unknown {
  const description = STATUS_TEXT[status] ?? String(status);
  if (answer.kind === "empty") return { description };
  if (answer.kind === "binary") {
    return { description, content: { [answer.contentType]: { schema: { type: "string", format: "binary" } } } };
  }
  const headers = Object.fromEntries(
    Object.entries(answer.headers ?? {}).map(([name, text]) => [name, {
      description: text,
      schema: { type: "string" },
    }]),
  );
  return {
    description,
    ...(answer.headers ? { headers } : {}),
    content: { "application/json": { schema: schemaOf(answer.schema, "output") } },
  };
}

/**
 * Statuses any operation may answer beyond its own list: a failure of the server, a store (database, bucket) it cannot
 * reach, and for a write a full disk.
 */
export function alwaysAnswered(r: Pick<Route, "method" | "auth">): number[] {
  const always = r.method === "GET" || r.method === "HEAD" ? [500, 503] : [500, 503, 507];
  // Any operator route refuses a role below the one it needs (the document names that role and the API token scope in
  // its description), and answers 429 to an address that sent too many invalid API tokens.
  return r.auth === "operator" ? [403, 429, ...always] : always;
}

/** The route's answers, with those every operation may give. */
function answersOf(r: Route): Record<string, Answer> {
  const always: Record<string, Answer> = Object.fromEntries(alwaysAnswered(r).map((s) => [s, json(ErrorBody)]));
  return { ...always, ...r.answers };
}

const SECURITY = {
  operator: [{ operatorToken: [] }],
  device: [{ deviceKey: [] }],
  ddi: [{ ddiToken: [] }],
  public: [],
} as const;

/** The whole document; `version` is the server's release. */
export function openApiDocument(list: readonly Route[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of list) {
    const operation: Record<string, unknown> = {
      operationId: r.name,
      summary: r.summary,
      ...(r.auth === "operator" ? { description: operatorNeeds(r) } : {}),
      tags: [r.auth === "ddi" ? "DDI" : tagOf(r.path)],
      security: SECURITY[r.auth],
      parameters: parameters(r),
      responses: Object.fromEntries(
        Object.entries(answersOf(r)).map(([s, a]) => [s, response(Number(s), a)]),
      ),
    };
    const body = requestBody(r);
    if (body) operation.requestBody = body;
    (paths[openApiPath(r)] ??= {})[r.method.toLowerCase()] = operation;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Therapy device fleet console API",
      version,
      description: "Operators sign in with POST /api/v1/login and send the token as a bearer token, or send an API " +
        "token (tdc_…, POST /api/v1/api_tokens) the same way; devices send the fleet's DEVICE_API_KEY as a bearer " +
        "token. Every error answer is {error, msg}.",
    },
    servers: [{ url: "/" }],
    components: {
      securitySchemes: {
        operatorToken: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description: "The token of POST /api/v1/login, or an API token (tdc_…) within its scopes.",
        },
        deviceKey: { type: "http", scheme: "bearer", description: "The fleet's DEVICE_API_KEY." },
        ddiToken: {
          type: "apiKey",
          in: "header",
          name: "Authorization",
          description: "hawkBit DDI (tag DDI, at the server root): `TargetToken <device token>` with " +
            "DEVICE_AUTH=token, `GatewayToken <DEVICE_API_KEY>` with DEVICE_AUTH=shared.",
        },
      },
    },
    paths,
  };
}

/** What an operator route needs: a role, and the scope an API token must hold (or that no token may call it). */
function operatorNeeds(r: Route): string {
  const scope = requiredScope(r);
  return `Needs the ${requiredRole(r)} role (or higher); ` +
    (scope === null ? "no API token may call it." : `an API token needs the ${scope} scope.`);
}

/** The first segment of a path groups its operations: devices, device_firmwares, device (the device API), ... */
function tagOf(path: string): string {
  return path.split("/")[1] || "auth";
}
