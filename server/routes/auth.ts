import { Hono } from "hono";
import { ChangePasswordBody, LoginBody } from "../../shared/schemas/auth.ts";
import { dummyHash, hashPassword, verifyPassword } from "../auth/password.ts";
import { issueToken } from "../auth/tokens.ts";
import type { AppContext, AppEnv } from "../context.ts";
import { emailKey } from "../db/rules/operators.ts";
import { ApiHttpError, badRequest } from "../errors.ts";
import { jsonBody } from "../validate.ts";

const invalidCredentials = () => new ApiHttpError(401, "invalid_credentials", "Invalid email address or password.");

/** POST login is public; POST change_password runs behind the operator middleware. */
export function authRoutes(ctx: AppContext) {
  return new Hono<AppEnv>()
    .post("/login", async (c) => {
      let body: LoginBody;
      try {
        body = await jsonBody(c, LoginBody);
      } catch {
        throw invalidCredentials();
      }
      const key = emailKey(body.email);
      const wait = ctx.throttle.retryAfter(key);
      if (wait > 0) {
        c.header("Retry-After", String(wait));
        throw new ApiHttpError(
          429,
          "too_many_requests",
          `Too many failed sign-ins for this e-mail address; try again in ${Math.ceil(wait / 60)} minute(s).`,
        );
      }
      const operator = await ctx.stores.operators.find(body.email);
      const ok = await verifyPassword(body.password, operator?.passwordHash ?? await dummyHash);
      if (!operator || !ok) {
        ctx.throttle.fail(key);
        throw invalidCredentials();
      }
      ctx.throttle.succeed(key);
      const token = await issueToken(
        ctx.secret,
        operator.email,
        operator.passwordVersion,
        ctx.config.TOKEN_TTL_SECONDS,
      );
      return c.json({ token });
    })
    .post("/change_password", async (c) => {
      const body = await jsonBody(c, ChangePasswordBody);
      const operator = c.get("operator");
      if (!(await verifyPassword(body.old_password, operator.passwordHash))) {
        throw badRequest("Current password is incorrect.");
      }
      await ctx.stores.operators.setPassword(operator.email, await hashPassword(body.new_password));
      return c.json({});
    });
}
