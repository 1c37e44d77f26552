/**
 * The role check of every operator route (docs/REQUIREMENTS.md §12): the route table says the least role each route needs
 * (shared/routes/route.ts, requiredRole); a signed-in operator below it gets 403 and nothing runs. A request made with
 * an API token must also hold the route's scope (requiredScope): the owner's current role AND the token's scopes.
 * Made per route when it is mounted (server/mount.ts), so the request path compares two values and looks nothing up.
 */
import type { Context, MiddlewareHandler } from "hono";
import { roleAllows } from "../../shared/schemas/operator.ts";
import { requiredRole, requiredScope, type Route, scopesAllow } from "../../shared/routes/route.ts";
import type { AppEnv } from "../context.ts";
import { forbidden } from "../errors.ts";

/**
 * The role and scope check of `route` for the operator already authenticated (auth/middleware.ts): throws 403 when
 * their role or the API token's scopes do not allow it.
 */
export function roleCheck(route: Pick<Route, "method" | "role" | "scope">): (c: Context<AppEnv>) => void {
  const need = requiredRole(route);
  const scope = requiredScope(route);
  return (c) => {
    const { role } = c.get("operator");
    if (!roleAllows(role, need)) {
      throw forbidden(`This needs the ${need} role; you are signed in as ${role}.`);
    }
    const apiToken = c.get("apiToken");
    if (apiToken && !scopesAllow(apiToken.scopes, scope)) {
      throw forbidden(
        scope === null
          ? "No API token may do this; sign in as an operator."
          : `This needs an API token with the ${scope} scope; this one has ${apiToken.scopes.join(", ")}.`,
      );
    }
  };
}

/** roleCheck() as middleware. */
export function requireRole(route: Pick<Route, "method" | "role" | "scope">): MiddlewareHandler<AppEnv> {
  const check = roleCheck(route);
  return async (c, next) => {
    check(c);
    await next();
  };
}
