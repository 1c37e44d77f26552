/**
 * The hottest routes (a quiet §6 check-in, a hawkBit DDI poll, the operators' GET devices) answered below Hono's
 * context: the app's fetch looks at the method and path first, and a route mounted with a lean form (server/mount.ts:
 * its guard's lean form, its path parameters, query and JSON body by the route table's schemas, its handler's lean
 * form) is answered here when everything before its handler admits the request. Here is what app.ts's middleware does
 * for every request, for these answers: the security headers and X-Request-Id (the request's id in every line its
 * handler logs and in an error's line), `Vary: Accept-Encoding` and gzip as the API's compression does,
 * console_http_* by the route's pattern, the request's log line, the §17 rule on the URL (a URL holding a `%` or a NUL
 * goes to Hono), errors the handler throws answered as app.onError answers them. Anything else — another method
 * (HEAD), a refusal, a body or query that fails, a throttled credential, a path Hono would give another route — is
 * passed to Hono, which answers it from the start.
 *
 * Why: Hono's context, its middleware frames and router, and the objects and promises they make cost a quiet poll more
 * CPU than its one statement (docs/DECISIONS.md, "Quiet polls: the fixed work below the route").
 */
import { API_PREFIX, type Route } from "../shared/routes/mod.ts";
import { errorAnswer } from "./error_answer.ts";
import { acceptsGzip, COMPRESS_THRESHOLD_BYTES, gzipStream } from "./lib/compress.ts";
import type { RequestLine } from "./lib/logger.ts";
import { markUnwatched } from "./lib/unwatched_answers.ts";
import { requestIdFrom, withRequest } from "./lib/request_context.ts";
import * as metrics from "./metrics.ts";
import { JsonText, type LeanServe } from "./mount.ts";

/** Hono's fetch, as Deno.serve and app.request() call it. */
export type Fetch = (req: Request, info?: unknown, ...rest: unknown[]) => Response | Promise<Response>;

export interface LeanOptions {
  /** The security headers every answer carries (app.ts). */
  headers: Record<string, string>;
  log: (line: string) => void;
  logRequest: (line: RequestLine) => void;
}

interface Entry {
  /** The route's pattern as Hono names it (console_http_* `route`). */
  pattern: string;
  match: RegExp;
  names: string[];
  /** Under /api/v1: `Vary: Accept-Encoding` and gzip, as the API app's compression middleware does. */
  api: boolean;
  serve: LeanServe;
}

let answered = 0;
/** How many requests the lean routes answered (tests: a lean answer must come from here, not from Hono). */
export const leanAnswers = () => answered;

const encoder = new TextEncoder();

/** `fetch` with the routes of `lean` (route → lean form) answered here when they can be. */
export function leanFetch(fetch: Fetch, lean: ReadonlyMap<Route, LeanServe>, opts: LeanOptions): Fetch {
  const byMethod = new Map<string, Entry[]>();
  for (const [route, serve] of lean) {
    const pattern = route.root ? route.path : `${API_PREFIX}${route.path}`;
    const names = [...pattern.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]);
    const match = new RegExp(
      `^${pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:[A-Za-z]+/g, "([^/]+)")}$`,
    );
    const entries = byMethod.get(route.method) ?? [];
    entries.push({ pattern, match, names, api: !route.root, serve });
    byMethod.set(route.method, entries);
  }
  // Lower-case names, as Deno's headers keep them.
  const security = Object.entries(opts.headers).map(([name, value]) => [name.toLowerCase(), value] as const);

  // The headers are set one by one on the made answer: Deno's Response converts an init's headers (a WebIDL sequence
  // or record) at several times the CPU and garbage of the same headers set afterwards
  // (scripts/bench/response_headers.ts).
  const answer = (e: Entry, req: Request, requestId: string, status: number, value: unknown): Response => {
    const text = value instanceof JsonText ? value.text : JSON.stringify(value);
    let gzip = false;
    let body: BodyInit = text;
    if (e.api && acceptsGzip(req.headers.get("accept-encoding") ?? undefined)) {
      const bytes = encoder.encode(text);
      if (bytes.byteLength >= COMPRESS_THRESHOLD_BYTES) [gzip, body] = [true, gzipStream(bytes)];
    }
    const res = new Response(body, { status });
    const headers = res.headers;
    for (const [name, value] of security) headers.set(name, value);
    headers.set("x-request-id", requestId);
    if (e.api) headers.set("vary", "Accept-Encoding");
    headers.set("content-type", "application/json");
    if (gzip) headers.set("content-encoding", "gzip");
    return markUnwatched(res);
  };

  const serve = async (e: Entry, req: Request, info: unknown, path: string, m: RegExpExecArray) => {
    const started = performance.now();
    const requestId = requestIdFrom(req.headers.get("x-request-id") ?? undefined);
    const params: Record<string, string> = {};
    for (let i = 0; i < e.names.length; i++) params[e.names[i]] = m[i + 1];
    // No scope around the guard's read: the route enters the request's one scope for its handler (server/mount.ts),
    // and a failure is logged in a scope of its own.
    let status = 200;
    let value: unknown;
    try {
      const served = await e.serve({ raw: req, requestId, info: info as Deno.ServeHandlerInfo | undefined, params });
      if ("pass" in served) return served.pass;
      value = served.answer;
    } catch (err) {
      const failed = withRequest(requestId, () => errorAnswer(err, req.method, path, opts.log));
      status = failed.status;
      value = failed.body;
    }
    const res = answer(e, req, requestId, status, value);
    const ms = performance.now() - started;
    metrics.countRequest(e.pattern, req.method, status, ms / 1000);
    opts.logRequest({ method: req.method, path, status, ms, requestId });
    answered++;
    return res;
  };

  return (req, info, ...rest) => {
    const entries = byMethod.get(req.method);
    if (entries === undefined) return fetch(req, info, ...rest);
    const url = req.url;
    // The §17 rule on the URL and Hono's decoding of the path: only a URL without escapes is taken here.
    if (url.includes("%") || url.includes("\u0000")) return fetch(req, info, ...rest);
    const start = url.indexOf("/", url.indexOf("://") + 3);
    const q = url.indexOf("?", start);
    const path = start < 0 ? "/" : q < 0 ? url.slice(start) : url.slice(start, q);
    for (const e of entries) {
      // Hono answers every path under /api/ before the root's routes (an unknown API route is a 404 there).
      if (!e.api && path.startsWith("/api/")) continue;
      const m = e.match.exec(path);
      if (m === null) continue;
      // Passed on: to Hono, with the body put back when it was read.
      return serve(e, req, info, path, m).then((out) => out instanceof Response ? out : fetch(out, info, ...rest));
    }
    return fetch(req, info, ...rest);
  };
}
