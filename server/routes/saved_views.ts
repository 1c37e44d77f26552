import { Hono } from "hono";
import { routes } from "../../shared/routes/mod.ts";
import type { AppContext, AppEnv } from "../context.ts";
import { bodyOf, paramsOf } from "../route_table.ts";

/** Saved views of the devices list, per operator (docs/DECISIONS.md, "Saved views"). */
export function savedViewsRoutes(ctx: AppContext) {
  const { savedViews } = ctx.stores;
  const actor = (me: { id: string; role: string }) => ({ operatorId: me.id, admin: me.role === "admin" });
  return new Hono<AppEnv>()
    .get("/", async (c) => c.json(await savedViews.list(c.get("operator").id)))
    .post("/", async (c) => {
      const body = await bodyOf(routes.createSavedView, c);
      const view = await savedViews.create(c.get("operator").id, {
        name: body.name,
        query: body.query,
        shared: body.shared ?? false,
      });
      return c.json(view, 201);
    })
    .patch("/:id", async (c) => {
      const { id } = paramsOf(routes.patchSavedView, c);
      const body = await bodyOf(routes.patchSavedView, c);
      return c.json(await savedViews.update(id, actor(c.get("operator")), body));
    })
    .delete("/:id", async (c) => {
      const { id } = paramsOf(routes.deleteSavedView, c);
      const me = c.get("operator");
      const view = await savedViews.remove(id, actor(me));
      if (view.owner !== me.email) {
        ctx.log(`Saved view ${view._id} (${view.name}) of ${view.owner} deleted by ${me.email}.`);
      }
      return c.body(null, 204);
    });
}

/** The signed-in operator's console preferences (the devices list's columns). */
export function preferencesRoutes(ctx: AppContext) {
  const { savedViews } = ctx.stores;
  return new Hono<AppEnv>()
    .get("/", async (c) => c.json(await savedViews.preferences(c.get("operator").id)))
    .patch("/", async (c) => {
      const body = await bodyOf(routes.patchPreferences, c);
      return c.json(await savedViews.setPreferences(c.get("operator").id, body));
    });
}
