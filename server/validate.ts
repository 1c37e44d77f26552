import type { Context } from "hono";
import type * as z from "zod";
import { describeZodError } from "../shared/schemas/common.ts";
import { badRequest, tooLarge, unsupported } from "./errors.ts";

const MAX_JSON_BYTES = 1_048_576;

/** Reads and validates a JSON body with a shared schema; 400 naming the field otherwise. */
export async function jsonBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/json\b/i.test(type)) throw unsupported("The body must be JSON (Content-Type: application/json).");
  const length = Number(c.req.header("content-length") ?? "0");
  if (length > MAX_JSON_BYTES) throw tooLarge("The JSON body is larger than 1 MiB.");
  let text: string;
  try {
    text = await c.req.text();
  } catch {
    throw badRequest("body: could not be read.");
  }
  if (text.length > MAX_JSON_BYTES) throw tooLarge("The JSON body is larger than 1 MiB.");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest("body: is not valid JSON.");
  }
  return parse(schema, value, "body");
}

export function query<S extends z.ZodType>(c: Context, schema: S): z.output<S> {
  return parse(schema, c.req.query(), "query");
}

export function parse<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw badRequest(describeZodError(result.error, where));
  return result.data;
}
