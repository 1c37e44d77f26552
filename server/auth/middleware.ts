import type { Context, Next } from "hono";
import type { AppContext, AppEnv } from "../context.ts";
import type { LeanGuard } from "../mount.ts";
import { requiredRole, requiredScope, type Route, scopesAllow } from "../../shared/routes/route.ts";
import { roleAllows } from "../../shared/schemas/operator.ts";
import type { ApiTokenAuth, Operator } from "../db/stores.ts";
import { ApiHttpError, unauthorized } from "../errors.ts";
import type { TokenClaims } from "../../shared/schemas/auth.ts";
import { isApiTokenSecret } from "../../shared/schemas/api_token.ts";
import { secretHash, wellFormedSecret } from "./api_tokens.ts";
import { clientAddress } from "./client_address.ts";
import { actingAs } from "./acting_as.ts";
import { retryAfterSeconds, waitText } from "./throttle.ts";
import { knownToken, readToken } from "./tokens.ts";
import { runAs } from "../db/audit_context.ts";
import type { AuditActor } from "../../shared/schemas/audit.ts";

/** An operator as the actor of audit entries: id and e-mail. */
export const operatorActor = (operator: Pick<Operator, "id" | "email">): AuditActor => ({
  type: "operator",
  id: operator.id,
  name: operator.email,
});

/** An API token as the actor of audit entries: its id and name (the owner is in its api_token.create entry). */
export const apiTokenActor = (token: { _id: string; name: string }): AuditActor => ({
  type: "api_token",
  id: token._id,
  name: token.name,
});

/** Bearer token of the Authorization header, or null. */
export function bearer(header: string | undefined): string | null {
  const m = /^Bearer ([^\s]+)$/i.exec(header ?? "");
  return m ? m[1] : null;
}

/** lastUsedAt is written when it is older than this, so a busy token's reads do not all become writes. */
export const LAST_USED_EVERY_MS = 60_000;

/**
 * Requires a valid operator token whose password version is still current, or a valid API token (`tdc_…`). The
 * operator is looked up on every request (operators.currentWithDevicesVersion(): cheap, and it sees a password change
 * made by any process at once), so a change ends every earlier token immediately; an API token and its owner are
 * looked up the same way (apiTokens.currentWithDevicesVersion()), so a revocation or the owner's disabling ends it at
 * once, on every replica. On SQLite both answers come from memory while nothing they read has changed, which the
 * database itself tells (server/db/sqlite/remembered_credentials.ts): the same next-request rule.
 */
export function requireOperator(
  ctx: AppContext,
): (c: Context<AppEnv>, next: Next, check?: (c: Context<AppEnv>) => void) => Promise<void> {
  const { operators, apiTokens, loginAttempts } = ctx.stores;
  // The devices' change counter comes with the operator (one statement), for GET devices' page cache.
  const admit = async (c: Context<AppEnv>, claims: TokenClaims | null): Promise<Operator> => {
    if (!claims) throw unauthorized("The token is invalid or has expired; sign in again.");
    const { operator, devicesVersion } = await operators.currentWithDevicesVersion(claims.sub);
    if (!operator || operator.disabled || (claims.pwv ?? 0) !== operator.passwordVersion) {
      throw unauthorized("The token is no longer valid; sign in again.");
    }
    c.set("devicesVersion", devicesVersion);
    return operator;
  };

  /** A bad API token counts against the client's address (like a wrong password); past the free ones it is 429. */
  const refuseToken = async (c: Context<AppEnv>, msg: string): Promise<never> => {
    const address = clientAddress(c, ctx.config.trustProxy);
    // Keyed by the address alone (it stands in for the e-mail too): on PostgreSQL the throttle's lock is then per
    // address, so bad tokens from one place never queue those from another.
    const reservation = await loginAttempts.reserve({ scope: "api_token", email: address, address });
    if (!reservation.ok) {
      c.header("Retry-After", String(retryAfterSeconds(reservation.waitMs)));
      throw new ApiHttpError(
        429,
        "too_many_requests",
        `Too many invalid API tokens from your address; try again in ${waitText(reservation.waitMs)}.`,
      );
    }
    throw unauthorized(msg);
  };

  const admitToken = async (c: Context<AppEnv>, secret: string): Promise<ApiTokenAuth> => {
    const { found, devicesVersion } = wellFormedSecret(secret)
      ? await apiTokens.currentWithDevicesVersion(secretHash(secret))
      : { found: null, devicesVersion: undefined };
    if (!found) return await refuseToken(c, "The API token is unknown or has been revoked.");
    c.set("devicesVersion", devicesVersion);
    if (found.owner.disabled) return await refuseToken(c, "The API token's owner is disabled.");
    const at = Date.now();
    if (found.token.expiresAt !== null && Date.parse(found.token.expiresAt) <= at) {
      return await refuseToken(c, "The API token has expired.");
    }
    const last = found.token.lastUsedAt;
    if (last === null || at - Date.parse(last) >= LAST_USED_EVERY_MS) {
      // Best effort: a request must not fail because this bookkeeping could not be written (a full disk, say).
      await apiTokens.touch(
        found.token._id,
        new Date(at).toISOString(),
        new Date(at - LAST_USED_EVERY_MS).toISOString(),
      ).catch(() => {});
    }
    return found;
  };

  // `check`: the route's role and scope check (auth/roles.ts), run once the operator is known.
  return async (c, next, check) => {
    const token = bearer(c.req.header("authorization"));
    if (!token) throw unauthorized();
    let actor: AuditActor;
    if (isApiTokenSecret(token)) {
      const { token: apiToken, owner } = await admitToken(c, token);
      c.set("operator", owner);
      c.set("apiToken", { id: apiToken._id, name: apiToken.name, scopes: apiToken.scopes });
      actor = apiTokenActor(apiToken);
    } else {
      // A token verified before skips the HMAC: this is every request's path.
      const known = knownToken(ctx.secret, token);
      const operator = await admit(c, known !== undefined ? known : await readToken(ctx.secret, token));
      c.set("operator", operator);
      actor = operatorActor(operator);
    }
    check?.(c);
    // Everything this request does is recorded in the audit trail as this operator's or API token's
    // (server/db/audit_context.ts). The address as text: the request's scope keeps this object, so it must not hold
    // the request (server/request_scope.ts).
    await runAs({ actor, ip: clientAddress(c, ctx.config.trustProxy) }, next);
  };
}

/**
 * The lean form of the operator guard (server/mount.ts; GET devices is answered below Hono): admits exactly what
 * requireOperator and the route's role check admit without a side effect — a known (already verified, unexpired)
 * operator token whose operator is enabled with the token's password version, or a well-formed API token that is
 * found, unexpired, its owner enabled and its lastUsedAt recent (a stale one is written by requireOperator) — and
 * whose role (and the token's scopes) allow the route. Anything else is null: the Hono route answers it (verifies, refuses,
 * counts a bad API token against the address, touches lastUsedAt, answers 403), reading the credential again.
 * The admission names this operator or token as who the handler acts as (the audit context), as requireOperator does.
 */
export function operatorLeanGuard(ctx: AppContext): (route: Route) => LeanGuard {
  const { operators, apiTokens } = ctx.stores;
  const trustProxy = ctx.config.trustProxy;
  return (route) => {
    const need = requiredRole(route);
    const scope = requiredScope(route);
    return async ({ raw, info }) => {
      const token = bearer(raw.headers.get("authorization") ?? undefined);
      if (token === null) return null;
      let actor: AuditActor;
      let devicesVersion: number;
      if (isApiTokenSecret(token)) {
        if (!wellFormedSecret(token)) return null;
        const read = await apiTokens.currentWithDevicesVersion(secretHash(token));
        const found = read.found;
        if (found === null || found.owner.disabled || !roleAllows(found.owner.role, need)) return null;
        if (!scopesAllow(found.token.scopes, scope)) return null;
        const at = Date.now();
        if (found.token.expiresAt !== null && Date.parse(found.token.expiresAt) <= at) return null;
        const last = found.token.lastUsedAt;
        if (last === null || at - Date.parse(last) >= LAST_USED_EVERY_MS) return null;
        actor = apiTokenActor(found.token);
        devicesVersion = read.devicesVersion;
      } else {
        const claims = knownToken(ctx.secret, token);
        if (!claims) return null;
        const read = await operators.currentWithDevicesVersion(claims.sub);
        const operator = read.operator;
        if (!operator || operator.disabled || (claims.pwv ?? 0) !== operator.passwordVersion) return null;
        if (!roleAllows(operator.role, need)) return null;
        actor = operatorActor(operator);
        devicesVersion = read.devicesVersion;
      }
      return { devicesVersion, as: actingAs(actor, raw, info, trustProxy) };
    };
  };
}
