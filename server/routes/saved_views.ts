import { routes } from "../../shared/routes/mod.ts";
import type { AppContext } from "../context.ts";
import { type Api, mount } from "../mount.ts";

/** Saved views of the devices list, per operator (docs/DECISIONS.md, "Saved views"), and the console's preferences. */
export function savedViewsRoutes(api: Api, ctx: AppContext) {
  const { savedViews } = ctx.stores;
  const actor = (me: { id: string; role: string }) => ({ operatorId: me.id, admin: me.role === "admin" });
  mount(api, routes.listSavedViews, async (c) => c.json(await savedViews.list(c.get("operator").id)));
  mount(api, routes.createSavedView, async (c, { body }) => {
    const view = await savedViews.create(c.get("operator").id, {
      name: body.name,
      query: body.query,
      shared: body.shared ?? false,
    });
    return c.json(view, 201);
  });
  mount(api, routes.patchSavedView, async (c, { params: { id }, body }) => {
    return c.json(await savedViews.update(id, actor(c.get("operator")), body));
  });
  mount(api, routes.deleteSavedView, async (c, { params: { id } }) => {
    const me = c.get("operator");
    const view = await savedViews.remove(id, actor(me));
    if (view.owner !== me.email) {
      ctx.log(`Saved view ${view._id} (${view.name}) of ${view.owner} deleted by ${me.email}.`);
    }
    return c.body(null, 204);
  });
  // The signed-in operator's console preferences (the devices list's columns).
  mount(api, routes.getPreferences, async (c) => c.json(await savedViews.preferences(c.get("operator").id)));
  mount(api, routes.patchPreferences, async (c, { body }) => {
    return c.json(await savedViews.setPreferences(c.get("operator").id, body));
  });
}
