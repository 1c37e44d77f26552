/**
 * What a request that failed is answered (`{error, msg}` and its status), and what it counts and logs: app.onError's
 * work, shared with the lean routes (server/lean_routes.ts), which answer the same errors below Hono's context.
 */
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ErrorCode } from "../shared/schemas/common.ts";
import { StorageFullError, StoreError } from "./db/errors.ts";
import { ApiHttpError, errorCodeFor, fromStoreError } from "./errors.ts";
import { FilesUnavailableError } from "./files/firmware_files.ts";
import * as metrics from "./metrics.ts";

export interface ErrorAnswer {
  status: ContentfulStatusCode;
  body: { error: ErrorCode; msg: string };
}

/** The answer to `err` thrown by a request `method path`; counted in console_store_errors_total, logged when unknown. */
export function errorAnswer(err: unknown, method: string, path: string, log: (line: string) => void): ErrorAnswer {
  countStoreError(err);
  const answer = err instanceof ApiHttpError
    ? err
    : err instanceof FilesUnavailableError
    ? new ApiHttpError(503, "unavailable", err.message)
    : fromStoreError(err);
  if (answer) {
    if (answer.status === 507) log(`ERROR ${method} ${path}: 507, no space left in DATA_DIR.`);
    return { status: answer.status, body: { error: answer.code, msg: answer.message } };
  }
  if (err instanceof HTTPException) {
    const status = err.status as ContentfulStatusCode;
    const msg = err.message || (status === 413 ? "The request body is too large." : "The request was refused.");
    return { status, body: { error: errorCodeFor(status), msg } };
  }
  log(`ERROR ${method} ${path}: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
  return {
    status: 500,
    body: { error: "internal", msg: "Something went wrong on the server; the request changed nothing." },
  };
}

/** A request that failed in a store, for console_store_errors_total. */
function countStoreError(err: unknown) {
  if (err instanceof FilesUnavailableError) metrics.storeErrors.inc({ store: "files", kind: "unavailable" });
  else if (err instanceof StorageFullError) metrics.storeErrors.inc({ store: "database", kind: "full" });
  else if (err instanceof ApiHttpError) {
    if (err.status === 507) metrics.storeErrors.inc({ store: "files", kind: "full" });
    else if (err.status === 503) metrics.storeErrors.inc({ store: "database", kind: "unavailable" });
  } else if (!(err instanceof StoreError) && !(err instanceof HTTPException)) {
    metrics.storeErrors.inc({ store: "server", kind: "error" });
  }
}
