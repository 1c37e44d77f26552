/**
 * The role check of every operator route (CONTRACT §12): the route table says the least role each route needs
 * (shared/routes/route.ts, requiredRole); a signed-in operator below it gets 403 and nothing runs. A request made with
 * an API token must also hold the route's scope (requiredScope): the owner's current role AND the token's scopes.
 */
import type { MiddlewareHandler } from "hono";
import { roleAllows } from "../../shared/schemas/operator.ts";
import { requiredRole, requiredScope, scopesAllow } from "../../shared/routes/route.ts";
import { routeFor } from "../../shared/routes/match.ts";
import type { AppEnv } from "../context.ts";
import { forbidden } from "../errors.ts";

export const requireRole: MiddlewareHandler<AppEnv> = async (c, next) => {
  const { role } = c.get("operator");
  const apiToken = c.get("apiToken");
  // An admin's session may call every route: no need to find which one this is (the common case, off the hot path).
  const route = role === "admin" && !apiToken
    ? undefined
    : routeFor(c.req.method, c.req.path) ?? (c.req.method === "HEAD" ? routeFor("GET", c.req.path) : undefined);
  if (route) {
    const need = requiredRole(route);
    if (!roleAllows(role, need)) {
      throw forbidden(`This needs the ${need} role; you are signed in as ${role}.`);
    }
    if (apiToken) {
      const scope = requiredScope(route);
      if (!scopesAllow(apiToken.scopes, scope)) {
        throw forbidden(
          scope === null
            ? "No API token may do this; sign in as an operator."
            : `This needs an API token with the ${scope} scope; this one has ${apiToken.scopes.join(", ")}.`,
        );
      }
    }
  }
  await next();
};
