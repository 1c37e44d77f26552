/**
 * Holds every answer the test suite sees to the API's description (docs/REQUIREMENTS.md §14): the status must be one the route
 * lists (shared/routes/, the source of GET /api/v1/openapi.json), and a JSON answer must match the schema documented
 * for that status. The test server (testing/server.ts) wraps its fetches with it and fails the test at its end when
 * any answer broke the description.
 */
import { routeFor } from "./route_for.ts";
import { alwaysAnswered } from "../shared/openapi.ts";

/** JSON answers larger than this are held to their status only (a 200 MB treatment list is not parsed twice). */
const MAX_CHECKED_BYTES = 4 << 20;

export { routeFor };

/** What is wrong with an answer, or null. Requests outside the described routes (a typo'd path, /healthz) pass. */
export async function answerProblem(method: string, url: string, res: Response): Promise<string | null> {
  const { pathname } = new URL(url);
  const route = routeFor(method.toUpperCase(), pathname);
  if (!route) return null;
  const where = `${route.method} ${pathname} (${route.name})`;
  const answer = route.answers[res.status];
  if (!answer) {
    return alwaysAnswered(route).includes(res.status)
      ? null
      : `${where} answered ${res.status}, which is not documented`;
  }
  if (answer.kind !== "json" || route.method === "HEAD") return null;
  const length = Number(res.headers.get("content-length") ?? NaN);
  if (!(length <= MAX_CHECKED_BYTES)) return null;
  let body: unknown;
  try {
    body = JSON.parse(await res.clone().text());
  } catch {
    return `${where} answered ${res.status} with a body that is not JSON`;
  }
  const parsed = answer.schema.safeParse(body);
  if (parsed.success) return null;
  const issue = parsed.error.issues[0];
  return `${where} answered ${res.status} with a body that breaks its schema: ${issue.path.join(".")} ${issue.message}`;
}

/** A fetch that records the problem of each answer (the body stays readable). */
export function checkedFetch(inner: typeof fetch, problems: string[]): typeof fetch {
  return async (input, init) => {
    const res = await inner(input, init);
    const url = input instanceof Request ? input.url : String(input);
    const method = init?.method ?? (input instanceof Request ? input.method : "GET");
    const problem = await answerProblem(method, url, res).catch((err) => `checking ${url}: ${err}`);
    if (problem) problems.push(problem);
    return res;
  };
}
