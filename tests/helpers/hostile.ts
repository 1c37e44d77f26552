/**
 * Hostile-input helpers for the contract audit (tests/audit/): a seeded PRNG, JSON body
 * mutators, hand-written multipart bodies, forged tokens and the error-body check.
 */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { prng as mulberry32 } from "../../shared/prng.ts";

/**
 * The seeded PRNG of shared/prng.ts (mulberry32, also the demo's) with int(n) in [0, n), so a failing fuzz case
 * reproduces from its seed.
 */
export function prng(seed: number) {
  const { next, pick } = mulberry32(seed);
  const int = (n: number) => Math.floor(next() * n);
  return { next, int, pick };
}
export type Prng = ReturnType<typeof prng>;

/** The error code each status may carry (plus the route-specific codes the contract names). */
export const CODES_BY_STATUS: Record<number, readonly string[]> = {
  400: ["invalid_request", "import_failed"],
  401: ["unauthorized", "invalid_credentials"],
  404: ["not_found"],
  409: ["conflict"],
  412: ["precondition_failed"],
  413: ["too_large"],
  415: ["unsupported_media_type"],
  416: ["range_not_satisfiable"],
  429: ["too_many_requests"],
  500: ["internal"],
  503: ["unavailable"],
};

/**
 * What an error body must never hold: SQL, constraint names or stack frames. The import route's own words
 * ("not an SQLite database", a `.sqlite3` file name) are the contract's, not a leak: they are cut out first.
 */
export const LEAK = /SQLITE|constraint|at .*\.ts:\d+|node_modules|\/work\/|Error:/i;
const ALLOWED_WORDS = /\.sqlite3\b|\bSQLite (database|file)\b/gi;
export const leaks = (msg: string) => LEAK.test(msg.replace(ALLOWED_WORDS, ""));

/** Asserts an error body: exactly {error, msg}, strings, a code that fits the status, no leak. */
export function assertErrorBody(status: number, body: unknown, label: string): { error: string; msg: string } {
  assert.ok(body !== null && typeof body === "object" && !Array.isArray(body), `${label}: error body is not an object`);
  const rec = body as Record<string, unknown>;
  assert.deepEqual(Object.keys(rec).sort(), ["error", "msg"], `${label}: error body keys ${JSON.stringify(body)}`);
  assert.equal(typeof rec.error, "string", `${label}: error is not a string`);
  assert.equal(typeof rec.msg, "string", `${label}: msg is not a string`);
  assert.ok((rec.msg as string).trim().length > 0, `${label}: empty msg`);
  assert.ok(!leaks(rec.msg as string), `${label}: msg leaks internals: ${rec.msg}`);
  const allowed = CODES_BY_STATUS[status];
  assert.ok(allowed, `${label}: status ${status} is not in the error table`);
  assert.ok(allowed.includes(rec.error as string), `${label}: status ${status} with error ${rec.error}`);
  return rec as { error: string; msg: string };
}

// ---------------------------------------------------------------- JSON bodies

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type JsonPath = (string | number)[];

export const clone = <T>(v: T): T => structuredClone(v);

/** Every path inside a JSON value (not the root), depth first. */
export function paths(value: Json, prefix: JsonPath = []): JsonPath[] {
  const out: JsonPath[] = [];
  if (Array.isArray(value)) {
    value.forEach((v, i) => out.push([...prefix, i], ...paths(v, [...prefix, i])));
  } else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) out.push([...prefix, k], ...paths(v, [...prefix, k]));
  }
  return out;
}

export function getAt(value: unknown, path: JsonPath): unknown {
  let v = value;
  for (const k of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<string | number, unknown>)[k];
  }
  return v;
}

/** A copy of `value` with `path` set (or deleted when `next` is undefined). */
export function setAt(value: Json, path: JsonPath, next: Json | undefined): Json {
  const copy = clone(value);
  let parent = copy as Record<string | number, Json>;
  for (const k of path.slice(0, -1)) parent = parent[k] as Record<string | number, Json>;
  const last = path[path.length - 1];
  if (next === undefined) {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else if (Array.isArray(parent)) parent[last as number] = next;
  else {
    // An own member even for "__proto__": what JSON.parse makes of such a key.
    Object.defineProperty(parent, last, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

export const kindOf = (v: unknown) => v === null ? "null" : Array.isArray(v) ? "array" : typeof v;

/** Values of a wrong JSON type for a value of the given kind (null is handled by the caller). */
export function wrongTypes(kind: string): Json[] {
  switch (kind) {
    case "string":
      return [42, true, {}, ["x"]];
    case "array":
      return ["x", 42, { "0": "x" }, false];
    case "object":
      return ["x", 42, [], true];
    case "boolean":
      return ["true", 1, {}, []];
    case "number":
      return ["1", true, {}, []];
    default:
      return [];
  }
}

/** Strings a hostile client sends: the server may accept some, but never answers 500 to any. */
export const HOSTILE_STRINGS: { label: string; value: string }[] = [
  { label: "empty", value: "" },
  { label: "blank", value: "   " },
  { label: "10k chars", value: "x".repeat(10_000) },
  { label: "emoji", value: "🦄 Ünïcødé ✓ 日本語" },
  { label: "NUL", value: "a\u0000b" },
  { label: "control", value: "a\u0007\u001b[31mb" },
  { label: "newline", value: "a\nb" },
  { label: "lone surrogate", value: "a\ud800b" },
  { label: "rtl override", value: "\u202eevil" },
  { label: "sql", value: "'; DROP TABLE devices; --" },
  { label: "like wildcards", value: "%_\\" },
  { label: "path", value: "../../etc/passwd" },
];

/** One random mutation of a JSON value (bounded: no mutation grows a body past ~30 KB). */
export function mutate(rng: Prng, body: Json): Json {
  const all = paths(body);
  const target: JsonPath = all.length && rng.next() < 0.85 ? rng.pick(all) : [];
  const current = target.length ? getAt(body, target) as Json : body;
  const pool: Json[] = [
    null,
    true,
    false,
    0,
    -1,
    1.5,
    1e308,
    -0,
    Number.MAX_SAFE_INTEGER + 2,
    "",
    " ",
    "x".repeat(rng.pick([1, 129, 201, 1025, 10_000])),
    rng.pick(HOSTILE_STRINGS).value,
    [],
    [null],
    ["x", "x"],
    {},
    { a: 1 },
    JSON.parse('{"__proto__": 1}'),
    nest(rng.int(200) + 1),
  ];
  const op = rng.int(8);
  if (target.length === 0) {
    // The root itself.
    if (op < 2 || kindOf(body) !== "object") return rng.pick(pool);
    if (op < 4) return [body];
    return setAt(body, [rng.pick(["extra", "__proto__", "constructor", "toString", ""])], rng.pick(pool));
  }
  switch (op) {
    case 0:
      return setAt(body, target, undefined); // delete
    case 1:
    case 2:
    case 3:
      return setAt(body, target, rng.pick(pool));
    case 4:
      return setAt(body, target, JSON.stringify(current)); // stringified
    case 5:
      return setAt(body, target, [current]); // wrapped
    case 6: {
      // An unknown member next to the target.
      const parentPath = target.slice(0, -1);
      const parent = parentPath.length ? getAt(body, parentPath) : body;
      if (kindOf(parent) === "object") return setAt(body, [...parentPath, "unknown_" + rng.int(9)], rng.pick(pool));
      if (kindOf(parent) === "array") return setAt(body, [...parentPath, (parent as Json[]).length], current);
      return setAt(body, target, rng.pick(pool));
    }
    default:
      // A string-ish edit of a string, else a type swap.
      if (typeof current === "string") {
        return setAt(body, target, rng.pick([current.toUpperCase(), current + "x", current.slice(1), ` ${current} `]));
      }
      return setAt(body, target, rng.pick(pool));
  }
}

/** Nested arrays, `depth` deep. */
export function nest(depth: number): Json {
  let v: Json = [];
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

/** A raw-text mutation of serialized JSON: truncation, a stray byte, a BOM, trailing garbage. */
export function mutateText(rng: Prng, text: string): string {
  switch (rng.int(5)) {
    case 0:
      return text.slice(0, rng.int(text.length));
    case 1: {
      const at = rng.int(text.length);
      return text.slice(0, at) + rng.pick(["{", "}", '"', ",", "\\", "\u0000", "]", ":"]) + text.slice(at);
    }
    case 2:
      return "\ufeff" + text;
    case 3:
      return text + rng.pick(["}", " x", ",", "\n{}"]);
    default:
      return text.replace(/"/g, "'");
  }
}

// ---------------------------------------------------------------- multipart

export interface Part {
  name: string;
  filename?: string;
  contentType?: string;
  data: Uint8Array | string;
}

/** A multipart body written by hand, for bodies the shared client would never send. */
export function multipart(boundary: string, parts: Part[], close = true): Uint8Array<ArrayBuffer> {
  const te = new TextEncoder();
  const chunks: Uint8Array[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ""}`;
    const type = p.contentType ? `\r\nContent-Type: ${p.contentType}` : "";
    chunks.push(te.encode(`--${boundary}\r\nContent-Disposition: ${disposition}${type}\r\n\r\n`));
    chunks.push(typeof p.data === "string" ? te.encode(p.data) : p.data);
    chunks.push(te.encode("\r\n"));
  }
  if (close) chunks.push(te.encode(`--${boundary}--\r\n`));
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.byteLength;
  }
  return out;
}

// ---------------------------------------------------------------- tokens

const b64url = (data: string | Uint8Array) =>
  (typeof data === "string" ? Buffer.from(data) : Buffer.from(data)).toString("base64url");

/** An HS256 JWT signed with `secret` (or unsigned with alg none when secret is null). */
export function jwt(claims: Record<string, unknown>, secret: string | null): string {
  const header = b64url(JSON.stringify({ alg: secret === null ? "none" : "HS256", typ: "JWT" }));
  const payload = b64url(JSON.stringify(claims));
  if (secret === null) return `${header}.${payload}.`;
  const sig = createHmac("sha256", secret).update(`${header}.${payload}`).digest("base64url");
  return `${header}.${payload}.${sig}`;
}
