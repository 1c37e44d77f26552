/**
 * Who is acting, for the audit trail: set once where a request is authenticated (the operator middleware, the device
 * routes) or by a tool (bootstrap, demo, `deno task user`: the system), and read by the stores' append functions, so
 * no route and no store method needs an actor parameter. Lives in server/db so that both the HTTP side and the stores
 * may import it (it imports nothing of either).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { AuditActor } from "../../shared/schemas/audit.ts";

export interface AuditContext {
  actor: AuditActor;
  /** The client's address as the server sees it (server/auth/client_address.ts), or null (no request). */
  ip: string | null;
}

export const SYSTEM_ACTOR: AuditActor = Object.freeze({ type: "system", id: "system", name: "system" });
const SYSTEM: AuditContext = Object.freeze({ actor: SYSTEM_ACTOR, ip: null });

const storage = new AsyncLocalStorage<AuditContext>();

/** Runs fn (and everything it awaits) as `ctx`'s actor. */
export function runAs<T>(ctx: AuditContext, fn: () => T): T {
  return storage.run(ctx, fn);
}

/** The acting context; the system when nothing set one. */
export function currentAuditContext(): AuditContext {
  return storage.getStore() ?? SYSTEM;
}
