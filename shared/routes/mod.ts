/**
 * The route table: every route the server answers under /api/v1, with its auth and the zod schemas of its path
 * parameters, query, body and answers. The client calls through it, the server mounts each route from its entry
 * (server/mount.ts: registration, auth, role, scope, validation), and tests/server/route_table.test.ts checks it
 * against the routes the app serves.
 */
import { auditRoutes } from "./audit.ts";
import { apiTokenRoutes } from "./api_tokens.ts";
import { authRoutes } from "./auth.ts";
import { deviceApiRoutes } from "./device_api.ts";
import { deviceTypeRoutes } from "./device_types.ts";
import { deviceRoutes } from "./devices.ts";
import { firmwareRoutes } from "./firmwares.ts";
import { metaRoutes } from "./meta.ts";
import { operatorRoutes } from "./operators.ts";
import { productTypeRoutes } from "./product_types.ts";
import type { Route } from "./route.ts";
import { rolloutRoutes } from "./rollouts.ts";
export { rolloutActionRoutes } from "./rollouts.ts";
import { savedViewRoutes } from "./saved_views.ts";
import { treatmentRoutes } from "./treatments.ts";

export * from "./route.ts";

export const routes = {
  ...authRoutes,
  ...deviceRoutes,
  ...deviceTypeRoutes,
  ...firmwareRoutes,
  ...treatmentRoutes,
  ...productTypeRoutes,
  ...deviceApiRoutes,
  ...metaRoutes,
  ...operatorRoutes,
  ...rolloutRoutes,
  ...auditRoutes,
  ...apiTokenRoutes,
  ...savedViewRoutes,
};

export type Routes = typeof routes;
export type RouteName = keyof Routes;

/** The table as a list, in a stable order. */
export const routeList: readonly Route[] = Object.values(routes);

/** hawkBit DDI (docs/REQUIREMENTS.md §18): at the server root, beside the table above, mounted the same way. */
export { ddiRouteList, ddiRoutes } from "./ddi.ts";
