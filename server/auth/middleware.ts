import type { MiddlewareHandler } from "hono";
import type { AppContext, AppEnv } from "../context.ts";
import { findOperator } from "../db/operators.ts";
import { unauthorized } from "../errors.ts";
import type { TokenClaims } from "../../shared/schemas/auth.ts";
import type { Operator } from "../db/operators.ts";
import { knownToken, readToken } from "./tokens.ts";

/** Bearer token of the Authorization header, or null. */
export function bearer(header: string | undefined): string | null {
  const m = /^Bearer ([^\s]+)$/i.exec(header ?? "");
  return m ? m[1] : null;
}

/** Requires a valid operator token whose password version is still current. */
export function requireOperator(ctx: AppContext): MiddlewareHandler<AppEnv> {
  const admit = (claims: TokenClaims | null): Operator => {
    if (!claims) throw unauthorized("The token is invalid or has expired; sign in again.");
    const operator = findOperator(ctx.db, claims.sub);
    if (!operator || (claims.pwv ?? 0) !== operator.password_version) {
      throw unauthorized("The token is no longer valid; sign in again.");
    }
    return operator;
  };
  return (c, next) => {
    const token = bearer(c.req.header("authorization"));
    if (!token) throw unauthorized();
    // A token verified before is admitted without awaiting: this is every request's path, so it stays synchronous.
    const known = knownToken(ctx.secret, token);
    if (known !== undefined) {
      c.set("operator", admit(known));
      return next();
    }
    return readToken(ctx.secret, token).then((claims) => {
      c.set("operator", admit(claims));
      return next();
    });
  };
}
