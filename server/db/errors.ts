/**
 * What a store throws when a request cannot be carried out, in domain terms and with the message for the client.
 * The HTTP layer maps each kind to its status once (app.onError); nothing here knows about HTTP.
 */
export class StoreError extends Error {
  override name = "StoreError";
}

/** The thing the request names (by path) does not exist. */
export class NotFoundError extends StoreError {
  override name = "NotFoundError";
}

/** The request clashes with what is stored: a name taken, a firmware still in use. */
export class ConflictError extends StoreError {
  override name = "ConflictError";
}

/** The request refers to something that does not exist or does not fit (an id in the body, a foreign module). */
export class InvalidError extends StoreError {
  override name = "InvalidError";
}

/** The request was made against a version of the entity that is no longer current (If-Match): nothing changed. */
export class PreconditionFailedError extends StoreError {
  override name = "PreconditionFailedError";
}

/** The database could not be written for lack of space (a full disk or quota): nothing of the request was kept. */
export class StorageFullError extends StoreError {
  override name = "StorageFullError";
}

/** A database written by a newer release: never touched, whoever opens it (server, `deno task user`, ...). */
export class NewerSchemaError extends Error {
  override name = "NewerSchemaError";
}

/** DATABASE_URL asks for something the console cannot do (a TLS file it cannot read, a parameter it does not support). */
export class DatabaseUrlError extends Error {
  override name = "DatabaseUrlError";
}

/** The database cannot be reached right now (PostgreSQL down or unreachable): the request may be retried later. */
export class StoreUnavailableError extends StoreError {
  override name = "StoreUnavailableError";
}

/** The caller may not do this to this thing (another operator's token, a scope beyond one's role): nothing changed. */
export class ForbiddenError extends StoreError {
  override name = "ForbiddenError";
}

/**
 * A signed upload's key was revoked (or is unknown) by the time its row is written: the signature no longer counts, so
 * nothing is stored (the upload answers 422 invalid_signature, docs/REQUIREMENTS.md §20).
 */
export class SigningKeyRevokedError extends StoreError {
  override name = "SigningKeyRevokedError";
}
