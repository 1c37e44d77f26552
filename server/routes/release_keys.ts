import { routes } from "../../shared/routes/mod.ts";
import type { AppContext } from "../context.ts";
import { badRequest, notFound } from "../errors.ts";
import { type Api, mount } from "../mount.ts";
import { parsePublicKey } from "../auth/release_signatures.ts";
import { noReleaseKey } from "../db/rules/release_keys.ts";

/** Release keys (docs/REQUIREMENTS.md §20): admins register and revoke them; any operator and CI token reads them. */
export function releaseKeysRoutes(api: Api, ctx: AppContext) {
  const { releaseKeys } = ctx.stores;
  mount(api, routes.listReleaseKeys, async (c) => c.json(await releaseKeys.list()));
  mount(api, routes.getReleaseKey, async (c, { params: { id } }) => {
    const key = await releaseKeys.get(id);
    if (!key) throw notFound(noReleaseKey(id));
    return c.json(key);
  });
  mount(api, routes.createReleaseKey, async (c, { body }) => {
    const parsed = parsePublicKey(body.publicKey);
    if (typeof parsed === "string") throw badRequest(parsed);
    const key = await releaseKeys.create({ name: body.name, ...parsed, createdBy: c.get("operator").email });
    ctx.log(`Release key ${key.name} (${key.algorithm}, ${key.fingerprint.slice(0, 16)}…) registered.`);
    return c.json(key, 201);
  });
  mount(api, routes.revokeReleaseKey, async (c, { params: { id } }) => {
    const key = await releaseKeys.revoke(id, c.get("operator").email);
    ctx.log(`Release key ${key.name} revoked.`);
    return c.body(null, 204);
  });
}
