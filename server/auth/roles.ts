/**
 * The role check of every operator route (CONTRACT §12): the route table says the least role each route needs
 * (shared/routes/route.ts, requiredRole); a signed-in operator below it gets 403 and nothing runs.
 */
import type { MiddlewareHandler } from "hono";
import { roleAllows } from "../../shared/schemas/operator.ts";
import { requiredRole } from "../../shared/routes/route.ts";
import { routeFor } from "../../shared/routes/match.ts";
import type { AppEnv } from "../context.ts";
import { forbidden } from "../errors.ts";

export const requireRole: MiddlewareHandler<AppEnv> = async (c, next) => {
  const { role } = c.get("operator");
  // An admin may call every route: no need to find which one this is (the common case, off the hot path).
  const route = role === "admin" ? undefined : routeFor(c.req.method, c.req.path);
  if (route) {
    const need = requiredRole(route);
    if (!roleAllows(role, need)) {
      throw forbidden(`This needs the ${need} role; you are signed in as ${role}.`);
    }
  }
  await next();
};
