import type { MiddlewareHandler } from "hono";
import type { AppContext, AppEnv } from "../context.ts";
import type { Operator } from "../db/stores.ts";
import { unauthorized } from "../errors.ts";
import type { TokenClaims } from "../../shared/schemas/auth.ts";
import { knownToken, readToken } from "./tokens.ts";
import { clientAddress } from "./client_address.ts";
import { runAs } from "../db/audit_context.ts";
import type { AuditActor } from "../../shared/schemas/audit.ts";

/** An operator as the actor of audit entries: id and e-mail. */
export const operatorActor = (operator: Pick<Operator, "id" | "email">): AuditActor => ({
  type: "operator",
  id: operator.id,
  name: operator.email,
});

/** Bearer token of the Authorization header, or null. */
export function bearer(header: string | undefined): string | null {
  const m = /^Bearer ([^\s]+)$/i.exec(header ?? "");
  return m ? m[1] : null;
}

/**
 * Requires a valid operator token whose password version is still current. The operator is looked up on every
 * request (operators.current(): cheap, and it sees a password change made by any process at once), so a change ends
 * every earlier token immediately.
 */
export function requireOperator(ctx: AppContext): MiddlewareHandler<AppEnv> {
  const { operators } = ctx.stores;
  const admit = async (claims: TokenClaims | null): Promise<Operator> => {
    if (!claims) throw unauthorized("The token is invalid or has expired; sign in again.");
    const operator = await operators.current(claims.sub);
    if (!operator || operator.disabled || (claims.pwv ?? 0) !== operator.passwordVersion) {
      throw unauthorized("The token is no longer valid; sign in again.");
    }
    return operator;
  };
  return async (c, next) => {
    const token = bearer(c.req.header("authorization"));
    if (!token) throw unauthorized();
    // A token verified before skips the HMAC: this is every request's path.
    const known = knownToken(ctx.secret, token);
    const operator = await admit(known !== undefined ? known : await readToken(ctx.secret, token));
    c.set("operator", operator);
    // Everything this request does is recorded in the audit trail as this operator's (server/db/audit_context.ts).
    await runAs({ actor: operatorActor(operator), ip: clientAddress(c, ctx.config.trustProxy) }, next);
  };
}
