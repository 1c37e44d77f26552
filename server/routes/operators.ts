import { routes } from "../../shared/routes/mod.ts";
import { hashOrBusy } from "../auth/too_many.ts";
import type { AppContext } from "../context.ts";
import { type Api, mount } from "../mount.ts";

/** GET me for anyone signed in; operator accounts for admins (the role is the route table's). */
export function operatorsRoutes(api: Api, ctx: AppContext) {
  const { operators } = ctx.stores;
  mount(api, routes.me, (c) => {
    const { email, role } = c.get("operator");
    return c.json({ email, role });
  });
  mount(api, routes.listOperators, async (c) => c.json(await operators.list()));
  mount(api, routes.createOperator, async (c, { body }) => {
    const account = await operators.add(body.email, await hashOrBusy(c, body.password), body.role);
    ctx.log(`Operator ${account.email} added as ${account.role} by ${c.get("operator").email}.`);
    return c.json(account, 201);
  });
  mount(api, routes.patchOperator, async (c, { params: { id }, body }) => {
    const account = await operators.update(id, body);
    ctx.log(`Operator ${account.email} is now ${account.disabled ? "disabled, " : ""}${account.role}.`);
    return c.json(account);
  });
  mount(api, routes.resetOperatorPassword, async (c, { params: { id }, body }) => {
    const account = await operators.resetPassword(id, await hashOrBusy(c, body.password));
    ctx.log(`Password of operator ${account.email} reset by ${c.get("operator").email}.`);
    return c.json(account);
  });
}
