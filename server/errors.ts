import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ErrorCode } from "../shared/schemas/common.ts";
import {
  ConflictError,
  ForbiddenError,
  InvalidError,
  NotFoundError,
  PreconditionFailedError,
  StorageFullError,
  StoreUnavailableError,
} from "./db/errors.ts";

/** An error answered as `{error, msg}` with its status (turned into JSON once, in app.onError). */
export class ApiHttpError extends HTTPException {
  constructor(status: ContentfulStatusCode, readonly code: ErrorCode, msg: string) {
    super(status, { message: msg });
  }
}

export const badRequest = (msg: string) => new ApiHttpError(400, "invalid_request", msg);
export const notFound = (msg: string) => new ApiHttpError(404, "not_found", msg);
export const conflict = (msg: string) => new ApiHttpError(409, "conflict", msg);
export const preconditionFailed = (msg: string) => new ApiHttpError(412, "precondition_failed", msg);
export const tooLarge = (msg: string) => new ApiHttpError(413, "too_large", msg);
export const unsupported = (msg: string) => new ApiHttpError(415, "unsupported_media_type", msg);
export const invalidFirmware = (msg: string) => new ApiHttpError(422, "invalid_firmware", msg);
export const invalidSignature = (msg: string) => new ApiHttpError(422, "invalid_signature", msg);
export const requestTimeout = (msg: string) => new ApiHttpError(408, "request_timeout", msg);
export const lengthRequired = (msg: string) => new ApiHttpError(411, "length_required", msg);
export const insufficientStorage = (msg: string) => new ApiHttpError(507, "insufficient_storage", msg);
export const forbidden = (msg: string) => new ApiHttpError(403, "forbidden", msg);
export const unauthorized = (msg = "Sign in first: a valid bearer token is required.") =>
  new ApiHttpError(401, "unauthorized", msg);

const codeForStatus: Record<number, ErrorCode> = {
  400: "invalid_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  408: "request_timeout",
  409: "conflict",
  411: "length_required",
  412: "precondition_failed",
  413: "too_large",
  415: "unsupported_media_type",
  416: "range_not_satisfiable",
  422: "invalid_firmware",
  429: "too_many_requests",
  503: "unavailable",
  507: "insufficient_storage",
};

export function errorCodeFor(status: number): ErrorCode {
  return codeForStatus[status] ?? (status >= 500 ? "internal" : "invalid_request");
}

/** A store's domain error as the answer it stands for; null for anything else. */
export function fromStoreError(err: unknown): ApiHttpError | null {
  if (err instanceof NotFoundError) return notFound(err.message);
  if (err instanceof ConflictError) return conflict(err.message);
  if (err instanceof InvalidError) return badRequest(err.message);
  if (err instanceof ForbiddenError) return forbidden(err.message);
  if (err instanceof PreconditionFailedError) return preconditionFailed(err.message);
  if (err instanceof StorageFullError) return insufficientStorage(err.message);
  if (err instanceof StoreUnavailableError) return new ApiHttpError(503, "unavailable", err.message);
  return null;
}
