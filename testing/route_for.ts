/**
 * The entry of the route table a request is for, found by scanning the table: for the harness that holds every answer
 * the tests see to the table (answer_check.ts). The server never looks a route up: each is mounted from its entry
 * (server/mount.ts).
 */
import { ddiRouteList, type Route, routeList, servedPath } from "../shared/routes/mod.ts";

const patterns = [...routeList, ...ddiRouteList].map((route) => ({
  route,
  re: new RegExp(`^${servedPath(route).replace(/:[A-Za-z_][A-Za-z0-9_]*/g, "[^/]+")}$`),
}));

/** The entry of the route table a request is for (by method and the URL's path, /api/v1 included), if any. */
export function routeFor(method: string, pathname: string): Route | undefined {
  return patterns.find((p) => p.route.method === method && p.re.test(pathname))?.route;
}
