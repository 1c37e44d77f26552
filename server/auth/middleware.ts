import type { MiddlewareHandler } from "hono";
import type { AppContext, AppEnv } from "../context.ts";
import { findOperator } from "../db/operators.ts";
import { unauthorized } from "../errors.ts";
import { readToken } from "./tokens.ts";

/** Bearer token of the Authorization header, or null. */
export function bearer(header: string | undefined): string | null {
  const m = /^Bearer ([^\s]+)$/i.exec(header ?? "");
  return m ? m[1] : null;
}

/** Requires a valid operator token whose password version is still current. */
export function requireOperator(ctx: AppContext): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const token = bearer(c.req.header("authorization"));
    if (!token) throw unauthorized();
    const claims = await readToken(ctx.secret, token);
    if (!claims) throw unauthorized("The token is invalid or has expired; sign in again.");
    const operator = findOperator(ctx.db, claims.sub);
    if (!operator || (claims.pwv ?? 0) !== operator.password_version) {
      throw unauthorized("The token is no longer valid; sign in again.");
    }
    c.set("operator", operator);
    await next();
  };
}
