/**
 * The one way a route of /api/v1 is served: `mount(api, route, handler)` registers the route table entry's method and
 * path, puts its guard in front (public: none; operator: the token, then the route's role and API token scope; device:
 * the device credential), validates its path parameters, query, If-Match and JSON body once, and hands the handler
 * what it parsed. Nothing else registers a route on the API app, so a route missing from the table cannot be served
 * (checkMounted refuses to start an app holding one).
 */
import { type Context, type Handler as HonoHandler, Hono, type MiddlewareHandler } from "hono";
import type * as z from "zod";
import type { Auth, Route } from "../shared/routes/mod.ts";
import type { AppEnv } from "./context.ts";
import type { IfMatch } from "./db/types/revisions.ts";
import { bodyOf, ifMatchOf, type JsonRoute, paramsOf, queryOf } from "./route_table.ts";

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

/** The API app (mounted under /api/v1), the guards its routes go through and the entries mounted so far. */
export interface Api {
  app: Hono<AppEnv>;
  guards: Guards;
  mounted: Set<Route>;
}

export function apiApp(guards: Guards, app = new Hono<AppEnv>()): Api {
  return { app, guards, mounted: new Set() };
}

export interface MountOptions {
  /**
   * The handler reads the JSON body itself (POST login: a body breaking the text rule is still a sign-in attempt to
   * throttle and audit, not a plain 400). Its schema is still the entry's.
   */
  ownBody?: boolean;
}

const key = (method: string, path: string) => `${method} ${path}`;

/** Serves `route` with `handler` behind the route's guard and validation. */
export function mount<const R extends Route>(api: Api, route: R, handler: Handler<R>, opts: MountOptions = {}): void {
  if (route.method === "HEAD") throw new Error(`${route.name}: a HEAD entry is served by its GET (mountHead).`);
  record(api, route);
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
