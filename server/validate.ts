import type { Context } from "hono";
import type * as z from "zod";
import { describeZodError } from "../shared/schemas/common.ts";
import { badTextAt, isCleanText, TEXT_RULE_MSG } from "../shared/text_rule.ts";
import { ApiHttpError, badRequest, tooLarge, unsupported } from "./errors.ts";

const MAX_JSON_BYTES = 1_048_576;

/**
 * A JSON body holding a string that breaks the text rule (docs/REQUIREMENTS.md §17): 400 naming where, in the words of a schema
 * refusal (`name: …`, `versionInfo.app: …`, a body that is itself a string `body: …`). Carries the parsed body for
 * the one route that still records such a request (a failed sign-in is audited with the e-mail escaped).
 */
export class TextRuleError extends ApiHttpError {
  constructor(readonly at: string, readonly value: unknown) {
    super(400, "invalid_request", `${at}: ${TEXT_RULE_MSG}.`);
  }
}

/** Reads and validates a JSON body with a shared schema; 400 naming the field otherwise. */
export async function jsonBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/json\b/i.test(type)) throw unsupported("The body must be JSON (Content-Type: application/json).");
  return jsonValue(await readText(c, MAX_JSON_BYTES), schema);
}

/**
 * A JSON body's value, from bytes read whole (a lean route's: server/mount.ts), or not ok when jsonBody would refuse
 * them (the Hono route then answers the refusal).
 */
export function jsonFromBytes<S extends z.ZodType>(
  bytes: Uint8Array,
  schema: S,
): { ok: true; value: z.output<S> } | { ok: false } {
  try {
    return { ok: true, value: jsonValue(strictUtf8.decode(bytes), schema) };
  } catch {
    return { ok: false };
  }
}

function jsonValue<S extends z.ZodType>(text: string, schema: S): z.output<S> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest("body: is not valid JSON.");
  }
  // Only a \u escape can put a NUL or a lone surrogate in a parsed string (JSON refuses a raw control character, and
  // decoded UTF-8 holds no lone surrogate): a text without one needs no walk through its value.
  const bad = !text.includes("\\u") && isCleanText(text)
    ? null
    : typeof value === "string"
    ? (isCleanText(value) ? null : "body")
    : badTextAt(value);
  if (bad !== null) throw new TextRuleError(bad, value);
  return parse(schema, value, "body");
}

/** The body as UTF-8 text, refused with 413 as soon as it passes `max` bytes (declared or chunked). */
async function readText(c: Context, max: number): Promise<string> {
  const tooBig = () => tooLarge(`The JSON body is larger than ${max / 1_048_576} MiB.`);
  const declared = c.req.header("content-length");
  if (Number(declared ?? "0") > max) throw tooBig();
  // A declared length within the limit is what the connection delivers (the HTTP layer ends the body there): read at
  // once, without a read and a promise per chunk. A chunked body is read a chunk at a time, refused once past `max`.
  if (declared !== undefined && /^\d{1,7}$/.test(declared) && c.req.header("transfer-encoding") === undefined) {
    return utf8(await c.req.raw.bytes().catch(() => null));
  }
  const body = c.req.raw.body;
  if (!body) return "";
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > max) {
        await reader.cancel().catch(() => {});
        throw tooBig();
      }
      chunks.push(value);
    }
  } catch (err) {
    if (err instanceof ApiHttpError) throw err;
    throw badRequest("body: could not be read.");
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return utf8(bytes);
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** The body's bytes as text (null: they could not be read); 400 unless UTF-8. */
function utf8(bytes: Uint8Array | null): string {
  if (bytes === null) throw badRequest("body: could not be read.");
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw badRequest("body: is not valid UTF-8.");
  }
}

export function parse<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw badRequest(describeZodError(result.error, where));
  return result.data;
}
