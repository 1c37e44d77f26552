/**
 * What a request's work runs as: its X-Request-Id (every line logged while it is handled carries it) and who acts for
 * the audit trail — one AsyncLocalStorage for both, so that a request enters it once where it can
 * (server/lib/request_context.ts and server/db/audit_context.ts are its two faces; it lives here because server/lib/
 * and server/db/ may not import each other).
 *
 * Why once, and after the database: Deno keeps each `run`'s value in a WeakMap keyed by an object of that run. A
 * request that waits on the database inside a run keeps that key past V8's young collections, and every such key is an
 * ephemeron each full collection must walk: on PostgreSQL two runs per quiet check-in made its full collections 3–10×
 * longer (docs/DECISIONS.md, "A request's scope entered once, after its wait"). The lean routes (server/mount.ts) enter
 * it once per request, after the guard's read.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { AuditActor } from "../shared/schemas/audit.ts";

export interface AuditContext {
  actor: AuditActor;
  /** The client's address as the server sees it (server/auth/client_address.ts), or null (no request). */
  ip: string | null;
}

interface Scope {
  readonly requestId: string | undefined;
  readonly audit: AuditContext | undefined;
}

const storage = new AsyncLocalStorage<Scope>();
let entered = 0;

/** How many scopes were entered (tests: a lean answer enters one). */
export const scopesEntered = () => entered;

/** Runs fn (and everything it awaits) as request `requestId` acting as `audit` (undefined: as the caller's). */
export function inScope<T>(requestId: string | undefined, audit: AuditContext | undefined, fn: () => T): T {
  entered++;
  return storage.run({ requestId, audit }, fn);
}

/** The request being handled, undefined outside one. */
export const scopeRequestId = (): string | undefined => storage.getStore()?.requestId;

/** Who acts, undefined when nothing set it. */
export const scopeAudit = (): AuditContext | undefined => storage.getStore()?.audit;
