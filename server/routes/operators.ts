import { Hono } from "hono";
import { routes } from "../../shared/routes/mod.ts";
import type { AppContext, AppEnv } from "../context.ts";
import { bodyOf, paramsOf } from "../route_table.ts";
import { hashOrBusy } from "./auth.ts";

/** GET me for anyone signed in; operator accounts for admins (the role check is the app's: server/auth/roles.ts). */
export function operatorsRoutes(ctx: AppContext) {
  const { operators } = ctx.stores;
  return new Hono<AppEnv>()
    .get("/me", (c) => {
      const { email, role } = c.get("operator");
      return c.json({ email, role });
    })
    .get("/operators", async (c) => c.json(await operators.list()))
    .post("/operators", async (c) => {
      const body = await bodyOf(routes.createOperator, c);
      const account = await operators.add(body.email, await hashOrBusy(c, body.password), body.role);
      ctx.log(`Operator ${account.email} added as ${account.role} by ${c.get("operator").email}.`);
      return c.json(account, 201);
    })
    .patch("/operators/:id", async (c) => {
      const { id } = paramsOf(routes.patchOperator, c);
      const account = await operators.update(id, await bodyOf(routes.patchOperator, c));
      ctx.log(`Operator ${account.email} is now ${account.disabled ? "disabled, " : ""}${account.role}.`);
      return c.json(account);
    })
    .post("/operators/:id/reset_password", async (c) => {
      const { id } = paramsOf(routes.resetOperatorPassword, c);
      const { password } = await bodyOf(routes.resetOperatorPassword, c);
      const account = await operators.resetPassword(id, await hashOrBusy(c, password));
      ctx.log(`Password of operator ${account.email} reset by ${c.get("operator").email}.`);
      return c.json(account);
    });
}
