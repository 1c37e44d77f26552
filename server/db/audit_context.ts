/**
 * Who is acting, for the audit trail: set once where a request is authenticated (the operator middleware, the device
 * routes) or by a tool (bootstrap, demo, `deno task user`: the system), and read by the stores' append functions, so
 * no route and no store method needs an actor parameter. Lives in server/db so that both the HTTP side and the stores
 * may import it (it imports nothing of either); it is one face of the request's scope (server/request_scope.ts).
 */
import type { AuditActor } from "../../shared/schemas/audit.ts";
import { type AuditContext, inScope, scopeAudit, scopeRequestId } from "../request_scope.ts";

export type { AuditContext };

export const SYSTEM_ACTOR: AuditActor = Object.freeze({ type: "system", id: "system", name: "system" });
const SYSTEM: AuditContext = Object.freeze({ actor: SYSTEM_ACTOR, ip: null });

/** Runs fn (and everything it awaits) as `ctx`'s actor. */
export function runAs<T>(ctx: AuditContext, fn: () => T): T {
  return inScope(scopeRequestId(), ctx, fn);
}

/** The acting context; the system when nothing set one. */
export function currentAuditContext(): AuditContext {
  return scopeAudit() ?? SYSTEM;
}
