/** Assertions shared by the server tests. */
import assert from "node:assert/strict";
import { ApiError } from "../../shared/client.ts";

/** The error code paired with each refusal status the tests expect. */
const CODES: Record<number, string> = {
  400: "invalid_request",
  404: "not_found",
  409: "conflict",
  412: "precondition_failed",
  413: "too_large",
  415: "unsupported_media_type",
};

/** Awaits p, which must reject with an ApiError of `status`, its code, and a msg matching `msg` if given. */
export async function rejects(p: Promise<unknown>, status: number, msg?: RegExp): Promise<ApiError> {
  const err = await p.then(() => null, (e) => e);
  assert.ok(err instanceof ApiError, `expected ApiError, got ${err}`);
  assert.equal(err.status, status, err.message);
  assert.equal(err.code, CODES[status]);
  if (msg) assert.match(err.msg, msg);
  return err;
}
