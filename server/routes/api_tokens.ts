import { routes } from "../../shared/routes/mod.ts";
import { newSecret, secretHash } from "../auth/api_tokens.ts";
import type { AppContext } from "../context.ts";
import { type Api, mount } from "../mount.ts";

/** API tokens (docs/REQUIREMENTS.md §12): one's own; admins see and revoke everyone's. No API token reaches these (scope null). */
export function apiTokensRoutes(api: Api, ctx: AppContext) {
  const { apiTokens } = ctx.stores;
  mount(api, routes.listApiTokens, async (c) => {
    const me = c.get("operator");
    return c.json(await apiTokens.list(me.role === "admin" ? null : me.id));
  });
  mount(api, routes.createApiToken, async (c, { body }) => {
    const me = c.get("operator");
    const secret = newSecret();
    const token = await apiTokens.create(me.id, {
      name: body.name,
      scopes: body.scopes,
      expiresAt: body.expiresAt ? new Date(body.expiresAt).toISOString() : null,
    }, secretHash(secret));
    ctx.log(`API token ${token._id} (${token.name}: ${token.scopes.join(" ")}) made by ${me.email}.`);
    return c.json({ ...token, token: secret }, 201);
  });
  mount(api, routes.revokeApiToken, async (c, { params: { id } }) => {
    const me = c.get("operator");
    const token = await apiTokens.revoke(id, { operatorId: me.id, admin: me.role === "admin" });
    ctx.log(`API token ${token._id} (${token.name}) of ${token.owner} revoked by ${me.email}.`);
    return c.body(null, 204);
  });
}
