/**
 * server/route_table.ts: handlers that take their validation from the route table answer exactly as the real
 * routes do today (same status, same {error, msg}) for bad path parameters, queries and bodies, and hand back
 * the parsed values (defaults applied, names trimmed) for good ones.
 */
import assert from "node:assert/strict";
import { Hono } from "hono";
import { ApiHttpError } from "../../server/errors.ts";
import { bodyOf, type JsonRoute, paramsOf, queryOf } from "../../server/route_table.ts";
import { urlTextRule } from "../../server/lib/text_rule.ts";
import { API_PREFIX, type Route, routeList } from "../../shared/routes/mod.ts";
import { DEVICE_KEY as DEVICE_API_KEY, testApp } from "../routes/app.ts";

/**
 * Every table route with something to validate, answering what it parsed; behind the text rule on the URL that the
 * server applies before any route (docs/REQUIREMENTS.md §17), as the real app is.
 */
function validatingApp() {
  const app = new Hono();
  app.use("*", urlTextRule);
  for (const r of routeList as Route[]) {
    if (r.method === "HEAD" || r.body.kind === "multipart" || (!r.params && !r.query && r.body.kind !== "json")) {
      continue;
    }
    app.on(r.method, `${API_PREFIX}${r.path}`, async (c) => {
      const params = r.params ? paramsOf(r, c) : undefined;
      const query = r.query ? queryOf(r, c) : undefined;
      const body = r.body.kind === "json" ? await bodyOf(r as JsonRoute, c) : undefined;
      return c.json({ params, query, body });
    });
  }
  app.onError((err, c) => {
    if (err instanceof ApiHttpError) return c.json({ error: err.code, msg: err.message }, err.status);
    throw err;
  });
  return app;
}

Deno.test("route table helpers: the same refusals as the routes the server serves today", async () => {
  await using built = await testApp();
  const token = await built.login();
  const helpers = validatingApp();
  const json = "application/json";
  const cases: [string, string, string?, string?][] = [
    ["GET", "/devices/a%20b"],
    ["GET", `/devices/${"d".repeat(129)}`],
    ["GET", "/devices?page=-1"],
    ["GET", "/devices?page=1.5&rowsPerPage=10"],
    ["GET", "/devices?rowsPerPage=abc"],
    ["GET", `/devices?q=${"q".repeat(129)}`],
    ["GET", "/devices?q=%01"],
    ["DELETE", "/devices/a%20b"],
    ["DELETE", "/devices/%00"],
    ["DELETE", "/devices/%01"],
    ["GET", "/devices?q=%ED%A0%80"],
    ["PATCH", "/devices/dev-1", '{"deviceId":"dev-1"}', "text/plain"],
    ["PATCH", "/devices/dev-1", "{", json],
    ["PATCH", "/devices/dev-1", '{"deviceId":"dev-1","x":1}', json],
    ["PATCH", "/devices/dev-1", '{"deviceId":5}', json],
    ["PATCH", "/devices/dev-1", '{"deviceId":"dev-1","moduleIds":["a","a"]}', json],
    ["PATCH", "/devices/bad%20id", '{"deviceId":"dev-1"}', json],
    ["PATCH", "/device_types/dt", "{}", json],
    ["PATCH", "/device_types/dt", '{"_id":"dt","defaultFirmware":7}', json],
    ["POST", "/product_types", '{"name":"  "}', json],
    ["POST", "/product_types", '{"name":"a\\u0001"}', json],
    ["POST", "/product_types", "[]", json],
    ["GET", `/product_types/${"p".repeat(129)}`],
    ["PATCH", `/product_types/${"p".repeat(129)}`, '{"_id":"p","name":"n","modules":[]}', json],
    ["PATCH", "/product_types/p", '{"_id":"p","name":"n","modules":[{"name":"m"}]}', json],
    ["DELETE", `/product_types/${"p".repeat(129)}`],
    ["POST", "/change_password", '{"old_password":1,"new_password":"long-enough"}', json],
    ["POST", "/change_password", '{"old_password":"x","new_password":"short"}', json],
    ["POST", "/device/bad%20id/checkin", '{"versionInfo":{"app":null,"os":null,"channels":[]}}', json],
    ["POST", "/device/dev-1/checkin", '{"versionInfo":{"app":1,"os":null,"channels":[]}}', json],
    ["POST", "/device/dev-1/checkin", '{"versionInfo":null}', "application/xml"],
    ["GET", "/device/%2F/config"],
    ["GET", `/device/${"d".repeat(200)}/firmware`],
  ];
  const differences: string[] = [];
  for (const [method, path, body, type] of cases) {
    const auth = path.startsWith("/device/") ? DEVICE_API_KEY : token;
    const init = () => ({
      method,
      body,
      headers: { authorization: `Bearer ${auth}`, ...(type ? { "content-type": type } : {}) },
    });
    const real = await built.app.request(`${API_PREFIX}${path}`, init());
    const viaTable = await helpers.request(`${API_PREFIX}${path}`, init());
    const [a, b] = [await real.text(), await viaTable.text()];
    const label = `${method} ${path.slice(0, 60)} ${body?.slice(0, 40) ?? ""}`;
    // 404: only the text rule's (a path holding a NUL names nothing); any other 404 differs from the helpers' 200.
    if (![400, 404, 413, 415].includes(real.status)) {
      differences.push(`${label}: the real route answered ${real.status} ${a}`);
    } else if (real.status !== viaTable.status || a !== b) {
      differences.push(`${label}: real ${real.status} ${a} / via the table ${viaTable.status} ${b}`);
    }
  }
  assert.deepEqual(differences, []);
});

Deno.test("route table helpers: parsed values, with the query defaults and trimmed names", async () => {
  const app = validatingApp();
  const get = async (method: string, path: string, body?: unknown) => {
    const res = await app.request(`${API_PREFIX}${path}`, {
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: body === undefined ? {} : { "content-type": "application/json" },
    });
    assert.equal(res.status, 200, `${method} ${path}: ${res.status}`);
    return await res.json();
  };
  assert.deepEqual(await get("GET", "/devices"), {
    query: { page: 0, rowsPerPage: 25, sort: "deviceId", order: "asc" },
  });
  assert.deepEqual(await get("GET", "/devices?page=3&rowsPerPage=10&q=ab"), {
    query: { page: 3, rowsPerPage: 10, q: "ab", sort: "deviceId", order: "asc" },
  });
  assert.deepEqual(await get("GET", "/devices/dev%3A1"), { params: { deviceId: "dev:1" } });
  assert.deepEqual(await get("POST", "/product_types", { name: "  Spaced  " }), { body: { name: "Spaced" } });
  assert.deepEqual(await get("PATCH", "/device_types/dt-1", { _id: "dt-1", defaultFirmware: null }), {
    params: { id: "dt-1" },
    body: { _id: "dt-1", defaultFirmware: null },
  });
});
