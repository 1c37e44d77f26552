/**
 * The request a line of log belongs to: app.ts runs each request inside `withRequest` (a lean route, its handler:
 * server/mount.ts), so whatever that request logs, however deep, carries its X-Request-Id. One face of the request's
 * scope (server/request_scope.ts).
 */
import { inScope, scopeAudit, scopeRequestId } from "../request_scope.ts";

/** Runs fn as request `requestId`, acting as whoever acts already (server/request_scope.ts). */
export const withRequest = <T>(requestId: string, fn: () => T): T => inScope(requestId, scopeAudit(), fn);

/** The id of the request being handled, or undefined outside one. */
export const currentRequestId = scopeRequestId;

/** A caller's X-Request-Id is kept when it is sane (short, printable, no spaces); else a new one is made. */
export function requestIdFrom(header: string | undefined): string {
  return header && /^[A-Za-z0-9._:\/+=-]{1,128}$/.test(header) ? header : crypto.randomUUID();
}
