import type { AuditActor } from "../../shared/schemas/audit.ts";
import type { AuditContext } from "../db/audit_context.ts";
import { requestAddress } from "./client_address.ts";

/**
 * Who a request a lean guard admitted acts as (server/mount.ts `as`): `actor` and the client's address, as text — the
 * request's scope keeps this object, so it must not hold the request itself (server/request_scope.ts).
 */
export const leanAs = (actor: AuditActor, raw: Request, info: unknown, trustProxy: boolean): AuditContext => ({
  actor,
  ip: requestAddress(raw, info, trustProxy),
});

/** A device as the audit trail names it: by its id. */
export const deviceActor = (id: string): AuditActor => ({ type: "device", id, name: id });
