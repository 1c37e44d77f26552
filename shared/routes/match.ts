import { API_PREFIX, type Route } from "./route.ts";
import { routeList } from "./mod.ts";

const patterns = routeList.map((route) => ({
  route,
  re: new RegExp(`^${API_PREFIX}${route.path.replace(/:[A-Za-z_][A-Za-z0-9_]*/g, "[^/]+")}$`),
}));

/** The entry of the route table a request is for (by method and the URL's path, /api/v1 included), if any. */
export function routeFor(method: string, pathname: string): Route | undefined {
  return patterns.find((p) => p.route.method === method && p.re.test(pathname))?.route;
}
