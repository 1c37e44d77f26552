import type { Context } from "hono";
import type { AuditActor } from "../../shared/schemas/audit.ts";
import type { AuditContext } from "../db/audit_context.ts";
import { requestAddress } from "./client_address.ts";

/**
 * Who a request acts as (the audit context; a lean guard's admission `as`, server/mount.ts): `actor` and the client's
 * address, as text — the request's scope keeps this object, so it must not hold the request itself
 * (server/request_scope.ts).
 */
export const actingAs = (actor: AuditActor, raw: Request, info: unknown, trustProxy: boolean): AuditContext => ({
  actor,
  ip: requestAddress(raw, info, trustProxy),
});

/** A device as the audit trail names it: by its id. */
export const deviceActor = (id: string): AuditActor => ({ type: "device", id, name: id });

/** Device `id` acting through a Hono route. */
export const deviceAs = (c: Context, id: string, trustProxy: boolean): AuditContext =>
  actingAs(deviceActor(id), c.req.raw, c.env, trustProxy);
