/**
 * A route's validation, taken from its entry in the shared route table (shared/routes/mod.ts), so a route validates
 * exactly what the table documents. server/mount.ts calls these once per request, for the parts the entry documents,
 * and hands the handler what they parsed. Each refusal is the usual 400 naming the field (server/validate.ts).
 */
import type { Context } from "hono";
import type * as z from "zod";
import type { Route } from "../shared/routes/mod.ts";
import type { IfMatch } from "./db/types/revisions.ts";
import { badRequest } from "./errors.ts";
import { parseIfMatch } from "./lib/if_match.ts";
import { jsonBody, parse } from "./validate.ts";

type Params<R extends Route> = R["params"] extends z.ZodType ? z.output<R["params"]> : Record<string, never>;
type Query<R extends Route> = R["query"] extends z.ZodType ? z.output<R["query"]> : Record<string, never>;
export type JsonRoute = Route & { body: { kind: "json"; schema: z.ZodType } };

/** The path parameters, parsed with the route's schema; 400 `deviceId: ...` otherwise. */
export function paramsOf<R extends Route>(route: R, c: Context): Params<R> {
  if (!route.params) throw new Error(`${route.name} has no path parameters.`);
  return parse(route.params, c.req.param(), "path") as Params<R>;
}

/** The query string, parsed with the route's schema (defaults applied); 400 `page: ...` otherwise. */
export function queryOf<R extends Route>(route: R, c: Context): Query<R> {
  if (!route.query) throw new Error(`${route.name} takes no query.`);
  return parse(route.query, c.req.query(), "query") as Query<R>;
}

/**
 * The If-Match header of a conditional write, for the store to check in its transaction: undefined when absent (the
 * write is unconditional), 400 `If-Match: ...` when malformed.
 */
export function ifMatchOf(route: Route, c: Context): IfMatch | undefined {
  if (!route.headers?.["If-Match"]) throw new Error(`${route.name} does not document If-Match.`);
  const parsed = parseIfMatch(c.req.header("if-match"));
  if (parsed === null) {
    throw badRequest(
      'If-Match: must be * or a comma-separated list of entity tags such as "17" (the ETag of the version you loaded).',
    );
  }
  return parsed;
}

/** The JSON body, read within the size limit and parsed with the route's schema; 400/413/415 otherwise. */
export async function bodyOf<R extends JsonRoute>(route: R, c: Context): Promise<z.output<R["body"]["schema"]>> {
  return await jsonBody(c, route.body.schema) as z.output<R["body"]["schema"]>;
}
