import { Hono } from "hono";
import { routes } from "../../shared/routes/mod.ts";
import { newSecret, secretHash } from "../auth/api_tokens.ts";
import type { AppContext, AppEnv } from "../context.ts";
import { bodyOf, paramsOf } from "../route_table.ts";

/** API tokens (CONTRACT §12): one's own; admins see and revoke everyone's. No API token reaches these (scope null). */
export function apiTokensRoutes(ctx: AppContext) {
  const { apiTokens } = ctx.stores;
  return new Hono<AppEnv>()
    .get("/", async (c) => {
      const me = c.get("operator");
      return c.json(await apiTokens.list(me.role === "admin" ? null : me.id));
    })
    .post("/", async (c) => {
      const body = await bodyOf(routes.createApiToken, c);
      const me = c.get("operator");
      const secret = newSecret();
      const token = await apiTokens.create(me.id, {
        name: body.name,
        scopes: body.scopes,
        expiresAt: body.expiresAt ? new Date(body.expiresAt).toISOString() : null,
      }, secretHash(secret));
      ctx.log(`API token ${token._id} (${token.name}: ${token.scopes.join(" ")}) made by ${me.email}.`);
      return c.json({ ...token, token: secret }, 201);
    })
    .delete("/:id", async (c) => {
      const { id } = paramsOf(routes.revokeApiToken, c);
      const me = c.get("operator");
      const token = await apiTokens.revoke(id, { operatorId: me.id, admin: me.role === "admin" });
      ctx.log(`API token ${token._id} (${token.name}) of ${token.owner} revoked by ${me.email}.`);
      return c.body(null, 204);
    });
}
