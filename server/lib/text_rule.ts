/**
 * The text rule (docs/REQUIREMENTS.md §17, shared/text_rule.ts) applied to the URL of every request, before any route sees it:
 * a path segment or a query name or value whose percent-decoded bytes are not UTF-8 (`%ED%A0%80`, a lone surrogate's
 * encoding; `%FF`) or hold a NUL (`%00`) can name nothing that is stored. Checked on the raw URL, since the router's
 * decoding leaves malformed escapes as they are and URLSearchParams turns them into U+FFFD.
 */
import type { MiddlewareHandler } from "hono";
import { TEXT_RULE_MSG } from "../../shared/text_rule.ts";
import { badRequest, notFound } from "../errors.ts";

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });
const HEX = /^[0-9A-Fa-f]{2}$/;

/**
 * Whether one raw (percent-encoded) URL component decodes to clean text. A `%` not followed by two hex digits is a
 * literal `%`, as the router reads it; `+` is a space in a query.
 */
export function cleanComponent(raw: string): boolean {
  if (!raw.includes("%")) return !raw.includes("\u0000");
  const bytes: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    const ch = raw.charCodeAt(i);
    if (ch === 0x25 && HEX.test(raw.slice(i + 1, i + 3))) {
      bytes.push(parseInt(raw.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (ch < 0x80) bytes.push(ch);
    else {
      // A raw non-ASCII character (the URL parser percent-encodes them; kept for safety): its UTF-8 bytes.
      const cp = raw.codePointAt(i)!;
      if (cp > 0xffff) i++;
      bytes.push(...new TextEncoder().encode(String.fromCodePoint(cp)));
    }
  }
  if (bytes.includes(0)) return false;
  try {
    return strictUtf8.decode(new Uint8Array(bytes)).isWellFormed();
  } catch {
    return false;
  }
}

/** What in a request URL breaks the rule: "path", or the query name (`query: name`), or null. */
export function urlTextProblem(url: string): { where: "path" } | { where: "query"; name: string } | null {
  // Nearly every URL: no escape and no NUL, so every component is clean (cleanComponent's first line), whatever it holds.
  if (!url.includes("%") && !url.includes("\u0000")) return null;
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return null;
  const hash = url.indexOf("#", start);
  const end = hash < 0 ? url.length : hash;
  const q = url.indexOf("?", start);
  const path = url.slice(start, q < 0 || q > end ? end : q);
  for (const segment of path.split("/")) if (!cleanComponent(segment)) return { where: "path" };
  if (q < 0 || q > end) return null;
  for (const pair of url.slice(q + 1, end).split("&")) {
    if (!pair) continue;
    const eq = pair.indexOf("=");
    const name = (eq < 0 ? pair : pair.slice(0, eq)).replaceAll("+", " ");
    const value = eq < 0 ? "" : pair.slice(eq + 1).replaceAll("+", " ");
    if (!cleanComponent(name)) return { where: "query", name: "(a parameter name)" };
    if (!cleanComponent(value)) return { where: "query", name: safeName(name) };
  }
  return null;
}

const safeName = (raw: string) => {
  try {
    return decodeURIComponent(raw).slice(0, 64);
  } catch {
    return raw.slice(0, 64);
  }
};

/** A hawkBit DDI path at the server's root, whatever its tenant (its query is the agent's: not checked here). */
const DDI_PATH = /^\/[^/]+\/controller\/v1(\/|$)/i;

/**
 * The rule as middleware, before any route: a path that holds a NUL or malformed UTF-8 names nothing (404, a plain
 * 404 outside the API); such an API query name or value is refused (400 naming it).
 */
export const urlTextRule: MiddlewareHandler = async (c, next) => {
  const problem = urlTextProblem(c.req.url);
  if (!problem) return await next();
  const api = c.req.path.startsWith("/api/");
  if (problem.where === "path") {
    // hawkBit DDI's paths (/{tenant}/controller/v1/...) answer {error, msg} as the API does; the web app's, plain text.
    if (!api && !DDI_PATH.test(c.req.path)) return c.text("Not found", 404);
    throw notFound(`No such resource: the path ${TEXT_RULE_MSG.replace("must be", "is not")}.`);
  }
  if (!api) return await next();
  throw badRequest(`query: ${problem.name}: ${TEXT_RULE_MSG}.`);
};
