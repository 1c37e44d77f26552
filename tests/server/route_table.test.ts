/**
 * The route table (shared/routes) against the real app: every route the app serves under /api/v1 is in the table,
 * every table route is served, and each answers a request without credentials as its auth kind says.
 */
import assert from "node:assert/strict";
import { API_PREFIX, ddiRouteList, paramNames, type Route, routeList, routes } from "../../shared/routes/mod.ts";
import { ErrorBody } from "../../shared/schemas/common.ts";
import { testApp } from "../routes/app.ts";

const key = (method: string, path: string) => `${method} ${path}`;
const tableKey = (r: Route) => key(r.method, `${API_PREFIX}${r.path}`);

Deno.test("route table: entries are well-formed", () => {
  for (const [name, r] of Object.entries(routes) as [string, Route][]) {
    assert.equal(r.name, name, `the entry under ${name} is named ${r.name}`);
    assert.match(r.path, /^\/[a-z_/:A-Z.]*[a-z]$/, `${name}: path ${r.path}`);
    assert.deepEqual(
      paramNames(r.path).sort(),
      Object.keys(r.params?.shape ?? {}).sort(),
      `${name}: the path's parameters and the params schema differ`,
    );
    const ok = Object.keys(r.answers).map(Number).filter((s) => s < 300);
    assert.ok(ok.length > 0, `${name}: no successful answer`);
    if (r.method === "GET" || r.method === "HEAD" || r.method === "DELETE") {
      assert.equal(r.body.kind, "none", `${name}: a ${r.method} with a body`);
    }
    for (const [status, answer] of Object.entries(r.answers)) {
      if (Number(status) >= 400 && r.method !== "HEAD") {
        assert.ok(answer.kind === "json" && answer.schema === ErrorBody, `${name}: ${status} is not an error body`);
      }
      if (r.method === "HEAD") assert.equal(answer.kind, "empty", `${name}: HEAD ${status} has a body`);
    }
    if (r.auth !== "public") assert.ok(r.answers[401], `${name}: ${r.auth} route without a 401 answer`);
  }
  const keys = routeList.map(tableKey);
  assert.deepEqual(keys.filter((k, i) => keys.indexOf(k) !== i), [], "a method and path twice in the table");
});

Deno.test("route table: exactly the routes the app serves under /api/v1", async () => {
  await using built = await testApp();
  const served = new Set<string>();
  const unlisted: string[] = [];
  for (const r of built.app.routes) {
    if (!r.path.startsWith(`${API_PREFIX}/`)) continue;
    // Middleware (auth) and the JSON 404 of unknown API paths are mounted on wildcards for every method.
    if (r.method === "ALL") {
      if (!r.path.endsWith("*")) unlisted.push(`ALL ${r.path} (a route for every method cannot be in the table)`);
      continue;
    }
    served.add(key(r.method, r.path));
  }
  // Hono answers HEAD with the GET handler: a HEAD entry is served when its GET is.
  const servedKey = (r: Route) => r.method === "HEAD" ? key("GET", `${API_PREFIX}${r.path}`) : tableKey(r);
  const table = new Set(routeList.map(tableKey));
  const missing = [...served].filter((k) => !table.has(k));
  const notServed = routeList.filter((r) => !served.has(servedKey(r))).map(tableKey);
  assert.deepEqual([...unlisted, ...missing], [], "served under /api/v1 but missing from shared/routes");
  assert.deepEqual(notServed, [], "in shared/routes but not served");
});

Deno.test("route table: each route's auth kind is the one the app enforces", async () => {
  await using built = await testApp();
  const problems: string[] = [];
  for (const r of routeList) {
    const path = `${API_PREFIX}${r.path.replace(/:[A-Za-z]+/g, "x-1")}`;
    const res = await built.app.request(path, { method: r.method });
    const text = await res.text();
    const body = text ? JSON.parse(text) as { error?: string; msg?: string } : {};
    const label = `${r.name} (${r.auth}) ${r.method} ${path}: ${res.status} ${text.slice(0, 120)}`;
    if (r.auth === "public") {
      if (res.status === 401 && body.error === "unauthorized") problems.push(label);
    } else if (res.status !== 401 || (r.method !== "HEAD" && body.error !== "unauthorized")) {
      problems.push(label);
    } else if (r.method !== "HEAD") {
      // The operator middleware and the device key check word their refusals differently.
      const deviceKey = body.msg?.includes("device API key") ?? false;
      if (deviceKey !== (r.auth === "device")) problems.push(label);
    }
  }
  assert.deepEqual(problems, []);
});

Deno.test("route table: the DDI routes are served at the root, each behind its credential", async () => {
  await using built = await testApp();
  const problems: string[] = [];
  for (const r of ddiRouteList) {
    assert.ok(r.root && r.auth === "ddi" && r.answers[401], r.name);
    const path = r.path.replace(":tenant", "default").replace(/:actionId|:moduleId/g, "1").replace(
      /:[A-Za-z]+/g,
      "x-1",
    );
    const res = await built.app.request(path, { method: r.method });
    const text = await res.text();
    if (res.status !== 401 || (r.method !== "HEAD" && !JSON.parse(text).msg.includes("GatewayToken"))) {
      problems.push(`${r.name} ${r.method} ${path}: ${res.status} ${text.slice(0, 120)}`);
    }
  }
  assert.deepEqual(problems, []);
});
