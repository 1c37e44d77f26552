/**
 * The one way a route of /api/v1 is served: `mount(api, route, handler)` registers the route table entry's method and
 * path, puts its guard in front (public: none; operator: the token, then the route's role and API token scope; device:
 * the device credential), validates its path parameters, query, If-Match and JSON body once, and hands the handler
 * what it parsed. Nothing else registers a route on the API app, so a route missing from the table cannot be served
 * (checkMounted refuses to start an app holding one).
 */
import { type Context, type Handler as HonoHandler, Hono, type MiddlewareHandler } from "hono";
import { getQueryParam } from "hono/utils/url";
import type * as z from "zod";
import type { Auth, Route } from "../shared/routes/mod.ts";
import type { AppEnv } from "./context.ts";
import type { PolledDevice } from "./db/stores.ts";
import type { IfMatch } from "./db/types/revisions.ts";
import { type AuditContext, inScope } from "./request_scope.ts";
import { bodyOf, ifMatchOf, type JsonRoute, paramsOf, queryOf } from "./route_table.ts";
import { jsonFromBytes } from "./validate.ts";

/** What a handler gets from its route's entry, parsed: absent parts are undefined. */
export interface Input<R extends Route> {
  params: R["params"] extends z.ZodType ? z.output<R["params"]> : undefined;
  query: R["query"] extends z.ZodType ? z.output<R["query"]> : undefined;
  /** undefined for a route without a JSON body, and for one mounted with `ownBody` (it reads its body itself). */
  body: R["body"] extends { kind: "json"; schema: infer S extends z.ZodType } ? z.output<S> : undefined;
  /** The If-Match header of a route that documents one (undefined when absent: the write is unconditional). */
  ifMatch: IfMatch | undefined;
}

export type Handler<R extends Route> = (c: Context<AppEnv>, input: Input<R>) => Response | Promise<Response>;

/** The middleware that admits a request to a route of each auth kind (given the route: the role check needs it). */
export type Guards = Record<Exclude<Auth, "public">, (route: Route) => MiddlewareHandler<AppEnv>>;

/**
 * A request as a lean route sees it (server/lean_routes.ts: answered below Hono's context): the request, what
 * Deno.serve says of its connection (undefined in process), its path parameters as the path holds them.
 */
export interface LeanRequest {
  raw: Request;
  /** Its X-Request-Id (server/lean_routes.ts), the id its handler's scope carries. */
  requestId: string;
  info: Deno.ServeHandlerInfo | undefined;
  params: Record<string, string>;
}

/**
 * A guard's lean form: whether the request's credential admits it, decided without answering and without counting
 * anything — the admission (with the device's row when the guard read it with the credential: DEVICE_AUTH=token
 * polls), or null: the Hono route answers instead (it refuses, counts the failure, throttles, as ever).
 */
export type LeanGuard = (req: LeanRequest) => Promise<LeanAdmission | null>;
export interface LeanAdmission {
  /** The device's row read with the credential (DEVICE_AUTH=token). */
  polled?: PolledDevice | null;
  /**
   * The device's row, to be read once the body is (DEVICE_AUTH=shared: the credential needs none; null: no such device
   * yet), as `polled` for the handler: nothing of the request made before it is then kept while it waits.
   */
  read?: () => Promise<PolledDevice | null>;
  /** The devices' change counter, read with the operator (GET devices' page cache; as the context's devicesVersion). */
  devicesVersion?: number;
  /** Who the handler runs as (the audit context): the admitted operator, API token or device, as the Hono guard. */
  as?: AuditContext;
}

/** A lean handler's answer that is JSON text already (sent as it is, not stringified again). */
export class JsonText {
  constructor(readonly text: string) {}
}
export type LeanGuards = Partial<Record<Exclude<Auth, "public">, (route: Route) => LeanGuard | undefined>>;

/**
 * A handler's lean form: the JSON value of its 200 answer, or its JSON text as a JsonText (errors it throws are
 * answered as app.onError answers).
 */
export type LeanHandler<R extends Route> = (req: LeanRequest, input: Input<R>, admission: LeanAdmission) => Promise<
  unknown
>;

/**
 * A lean route's whole work up to the answer: the answer's value, or `pass` — the request (its body put back when it
 * was read) for the Hono route to answer, which then does everything itself from the start.
 */
export type LeanServe = (req: LeanRequest) => Promise<{ answer: unknown } | { pass: Request }>;

/** The API app (mounted under /api/v1), the guards its routes go through and the entries mounted so far. */
export interface Api {
  app: Hono<AppEnv>;
  guards: Guards;
  leanGuards: LeanGuards;
  mounted: Set<Route>;
  /** The entries also answered below Hono (server/lean_routes.ts), with their lean form. */
  lean: Map<Route, LeanServe>;
}

export function apiApp(guards: Guards, app = new Hono<AppEnv>(), leanGuards: LeanGuards = {}): Api {
  return { app, guards, leanGuards, mounted: new Set(), lean: new Map() };
}

export interface MountOptions<R extends Route = Route> {
  /**
   * The handler's lean form, for a hot route (a quiet device poll) answered below Hono's context when everything
   * before the handler admits it: the guard's lean form, the path parameters and JSON body by the entry's schemas
   * (server/lean_routes.ts). Anything else — a refusal, a body that fails, a throttled credential — is answered by the
   * Hono route, so only the admitted request's answer is made twice over, and must be the same.
   */
  lean?: LeanHandler<R>;
  /**
   * The handler reads the JSON body itself (POST login: a body breaking the text rule is still a sign-in attempt to
   * throttle and audit, not a plain 400). Its schema is still the entry's.
   */
  ownBody?: boolean;
}

const key = (method: string, path: string) => `${method} ${path}`;

/** Serves `route` with `handler` behind the route's guard and validation. */
export function mount<const R extends Route>(
  api: Api,
  route: R,
  handler: Handler<R>,
  opts: MountOptions<R> = {},
): void {
  if (route.method === "HEAD") throw new Error(`${route.name}: a HEAD entry is served by its GET (mountHead).`);
  record(api, route);
  if (opts.lean) {
    if (opts.ownBody) throw new Error(`${route.name}: a lean route's body is read by mount().`);
    api.lean.set(route, leanServe(api, route, opts.lean));
  }
  const read = inputReader(route, opts);
  // A route without a JSON body to read is validated synchronously: no async frame and promise per request for it.
  const serve: HonoHandler<AppEnv> = "sync" in read
    ? (c) => handler(c, read.sync(c))
    : async (c) => handler(c, await read.async(c));
  if (route.auth === "public") api.app.on(route.method, route.path, serve);
  else api.app.on(route.method, route.path, api.guards[route.auth](route), serve);
}

/**
 * Declares a HEAD entry served: Hono answers HEAD with the GET route of the path (its guard and validation, the body
 * dropped), so the handler is the GET's; checkMounted makes sure that GET is mounted.
 */
export function mountHead(api: Api, route: Route & { method: "HEAD" }): void {
  record(api, route);
}

function record(api: Api, route: Route): void {
  if (api.mounted.has(route)) throw new Error(`${route.name} is mounted twice.`);
  api.mounted.add(route);
}

/**
 * The validation of a route, decided once at mount: only the parts the entry documents are read. Synchronous unless
 * the route has a JSON body to read.
 */
function inputReader<R extends Route>(
  route: R,
  opts: MountOptions,
): { sync: (c: Context<AppEnv>) => Input<R> } | { async: (c: Context<AppEnv>) => Promise<Input<R>> } {
  const params = route.params !== undefined;
  const query = route.query !== undefined;
  const ifMatch = route.headers?.["If-Match"] !== undefined;
  const body = route.body.kind === "json" && !opts.ownBody;
  // In this order: a request wrong in several parts is refused for the first, as the handlers did.
  const head = (c: Context<AppEnv>) => ({
    params: params ? paramsOf(route, c) : undefined,
    query: query ? queryOf(route, c) : undefined,
    ifMatch: ifMatch ? ifMatchOf(route, c) : undefined,
  });
  if (!body) {
    return {
      sync: (c) =>
        ({
          params: params ? paramsOf(route, c) : undefined,
          query: query ? queryOf(route, c) : undefined,
          ifMatch: ifMatch ? ifMatchOf(route, c) : undefined,
          body: undefined,
        }) as Input<R>,
    };
  }
  return {
    async: async (c) => {
      const input = head(c);
      return { ...input, body: await bodyOf(route as R & JsonRoute, c) } as Input<R>;
    },
  };
}

/** A JSON body of declared length up to this is read by a lean route; anything else is the Hono route's. */
const LEAN_MAX_BODY = 65_536;

/**
 * The lean form of a route: its guard's lean form, then its path parameters, query and JSON body by the entry's
 * schemas (in the order the Hono route checks them; any failure passes the request to the Hono route, which answers
 * it), then the handler's lean form, run as the guard admitted it (`as`: the audit context) in the request's scope.
 */
function leanServe<R extends Route>(api: Api, route: R, handler: LeanHandler<R>): LeanServe {
  if (route.headers?.["If-Match"] !== undefined) {
    throw new Error(`${route.name}: a lean route reads its path parameters, query and JSON body only.`);
  }
  if (route.body.kind !== "none" && route.body.kind !== "json") throw new Error(`${route.name}: not a JSON body.`);
  const guard: LeanGuard | undefined = route.auth === "public"
    ? () => Promise.resolve({})
    : api.leanGuards[route.auth]?.(route);
  if (!guard) throw new Error(`${route.name}: its guard (${route.auth}) has no lean form.`);
  const schema = route.body.kind === "json" ? route.body.schema : null;
  const readQuery = route.query && leanQuery(route.query);
  return async (req) => {
    const admission = await guard(req);
    if (admission === null) return { pass: req.raw };
    const params = route.params?.safeParse(req.params);
    if (params && !params.success) return { pass: req.raw };
    let query: { data: unknown } | undefined;
    if (readQuery !== undefined) {
      query = readQuery(req.raw.url);
      if (query === undefined) return { pass: req.raw };
    }
    let body: unknown = undefined;
    if (schema !== null) {
      const raw = req.raw;
      const type = raw.headers.get("content-type");
      const declared = raw.headers.get("content-length");
      if (
        type === null || !/^application\/json\b/i.test(type) || declared === null || !/^\d{1,5}$/.test(declared) ||
        Number(declared) > LEAN_MAX_BODY || raw.headers.has("transfer-encoding")
      ) return { pass: raw };
      const bytes = await raw.bytes().catch(() => null);
      // Read: the Hono route gets the same bytes (a body that cannot be read is its 400 too).
      if (bytes === null) return { pass: raw };
      const parsed = jsonFromBytes(bytes, schema);
      if (!parsed.ok) return { pass: new Request(raw, { body: bytes }) };
      body = parsed.value;
    }
    const input = { params: params?.data, query: query?.data, ifMatch: undefined, body } as Input<R>;
    if (admission.read) admission.polled = await admission.read();
    // The request's one scope, entered only now: after the guard's read and the body, so that a quiet poll answered
    // from memory leaves its scope before the next young collection (server/request_scope.ts).
    return { answer: await inScope(req.requestId, admission.as, () => handler(req, input, admission)) };
  };
}

/** Query strings whose parsed form is kept, per lean route, and the longest one kept. */
const QUERIES_KEPT = 256;
const QUERY_KEPT_CHARS = 512;

/**
 * The query of a URL as Hono's c.req.query() reads it (the first of repeated names), parsed by `schema`: its output, or
 * undefined when it fails (the Hono route answers the 400). A client sends the same few query strings again and again
 * (the console's page, the CLI's, the bench's), and parsing one was a twentieth of a cached GET devices' CPU: the last
 * ones parsed are kept by their query string (the parse depends on nothing else), and each request gets a copy of
 * its own; an output holding an object (an array, a nested value the handler could change) is never kept.
 */
function leanQuery(schema: z.ZodType): (url: string) => { data: unknown } | undefined {
  const kept = new Map<string, Record<string, unknown>>();
  return (url) => {
    const q = url.indexOf("?");
    const raw = q < 0 ? "" : url.slice(q);
    const known = kept.get(raw);
    if (known !== undefined) return { data: { ...known } };
    const parsed = schema.safeParse(getQueryParam(url));
    if (!parsed.success) return undefined;
    const data = parsed.data as Record<string, unknown>;
    if (raw.length <= QUERY_KEPT_CHARS && Object.values(data).every((v) => v === null || typeof v !== "object")) {
      if (kept.size >= QUERIES_KEPT) kept.clear();
      kept.set(raw, { ...data });
    }
    return { data };
  };
}

/**
 * Throws unless every route the API app holds was mounted from the table (and every HEAD entry has its GET): a
 * handler registered on the app by hand would be served without the table's guard and validation.
 */
export function checkMounted(api: Api): void {
  const mounted = new Set([...api.mounted].map((r) => key(r.method, r.path)));
  const stray = api.app.routes
    // Middleware (compression) is mounted on a wildcard for every method; anything else must come from the table.
    .filter((r) => !(r.method === "ALL" && r.path.endsWith("*")) && !mounted.has(key(r.method, r.path)))
    .map((r) => key(r.method, r.path));
  const headless = [...api.mounted].filter((r) => r.method === "HEAD" && !mounted.has(key("GET", r.path)));
  if (stray.length) throw new Error(`Not in the route table, refused: ${stray.join(", ")}.`);
  if (headless.length) throw new Error(`HEAD without its GET: ${headless.map((r) => r.name).join(", ")}.`);
}
