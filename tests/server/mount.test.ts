/**
 * server/mount.ts: the route table is the only way onto the API. A handler registered by hand is refused at start
 * (checkMounted); a request for a method and path the table does not hold is 404 for every credential (no session,
 * each role, an API token of each scope, the device key), and reaches no handler; a mounted route's guard takes its
 * role and scope from its entry, and its handler gets the parsed input.
 */
import assert from "node:assert/strict";
import { Hono } from "hono";
import { routes } from "../../shared/routes/mod.ts";
import { SCOPES } from "../../shared/schemas/api_token.ts";
import type { AppEnv } from "../../server/context.ts";
import type { Operator } from "../../server/db/stores.ts";
import { ApiHttpError } from "../../server/errors.ts";
import { requireRole } from "../../server/auth/roles.ts";
import { apiApp, checkMounted, mount } from "../../server/mount.ts";
import { DEVICE_KEY, testApp } from "../routes/app.ts";

Deno.test("mount: a route registered on the API app by hand is refused at start", () => {
  const api = apiApp({
    operator: () => (_c, next) => next(),
    device: () => (_c, next) => next(),
    ddi: () => (_c, next) => next(),
  });
  mount(api, routes.me, (c) => c.json({}));
  checkMounted(api);
  api.app.get("/me/secrets", (c) => c.json({ secret: true }));
  assert.throws(() => checkMounted(api), /Not in the route table, refused: GET \/me\/secrets/);
  api.app.all("/anything", (c) => c.json({}));
  assert.throws(() => checkMounted(api), /ALL \/anything/);
});

Deno.test("mount: a route mounted twice, or a HEAD entry mounted as a handler, is a mistake at start", () => {
  const api = apiApp({
    operator: () => (_c, next) => next(),
    device: () => (_c, next) => next(),
    ddi: () => (_c, next) => next(),
  });
  mount(api, routes.me, (c) => c.json({}));
  assert.throws(() => mount(api, routes.me, (c) => c.json({})), /mounted twice/);
  assert.throws(() => mount(api, routes.deviceFirmwareHead, (c) => c.body(null)), /served by its GET/);
});

Deno.test("mount: the guard has the entry's role and scope; the handler gets the parsed input", async () => {
  let as: { role: Operator["role"]; scopes?: string[] } = { role: "viewer" };
  const signedIn = (route: Parameters<typeof requireRole>[0]) => {
    const role = requireRole(route);
    return async (c: Parameters<ReturnType<typeof requireRole>>[0], next: () => Promise<void>) => {
      c.set("operator", { role: as.role } as Operator);
      if (as.scopes) c.set("apiToken", { id: "t", name: "t", scopes: as.scopes as typeof SCOPES[number][] });
      return await role(c, next);
    };
  };
  const api = apiApp({ operator: signedIn, device: () => (_c, next) => next(), ddi: () => (_c, next) => next() });
  const seen: unknown[] = [];
  // patchDevice: operator role, scope devices:write, params + If-Match + JSON body.
  mount(api, routes.patchDevice, (c, input) => {
    seen.push(input);
    return c.json({ ok: true });
  });
  const app = new Hono<AppEnv>().route("/api/v1", api.app);
  app.onError((err, c) => err instanceof ApiHttpError ? c.json({ error: err.code }, err.status) : c.text("500", 500));
  const patch = () =>
    app.request("/api/v1/devices/dev-1", {
      method: "PATCH",
      headers: { "content-type": "application/json", "if-match": '"3"' },
      body: JSON.stringify({ deviceId: "dev-1", moduleIds: [] }),
    });
  as = { role: "viewer" };
  assert.equal((await patch()).status, 403);
  as = { role: "admin", scopes: ["read"] };
  assert.equal((await patch()).status, 403);
  assert.deepEqual(seen, [], "no handler ran for a refused request");
  for (const who of [{ role: "operator" as const }, { role: "admin" as const, scopes: ["devices:write"] }]) {
    as = who;
    assert.equal((await patch()).status, 200, JSON.stringify(who));
  }
  assert.deepEqual(seen[0], {
    params: { deviceId: "dev-1" },
    query: undefined,
    ifMatch: ['"3"'],
    body: { deviceId: "dev-1", moduleIds: [] },
  });
});

Deno.test("mount: a method and path missing from the table is 404 for every credential", async () => {
  await using built = await testApp();
  const admin = await built.login();
  const call = (path: string, init: { method?: string; token?: string; json?: unknown } = {}) =>
    built.request(path, init);
  const credentials: Record<string, string | undefined> = { "no credential": undefined, admin, device: DEVICE_KEY };
  for (const role of ["viewer", "operator"] as const) {
    const email = `${role}@example.com`;
    const made = await call("/api/v1/operators", {
      method: "POST",
      token: admin,
      json: { email, password: `${role}-password-1`, role },
    });
    assert.equal(made.status, 201);
    const signedIn = await call("/api/v1/login", { method: "POST", json: { email, password: `${role}-password-1` } });
    credentials[role] = (await signedIn.json()).token;
  }
  for (const scope of SCOPES) {
    const made = await call("/api/v1/api_tokens", {
      method: "POST",
      token: admin,
      json: { name: scope, scopes: [scope] },
    });
    credentials[`API token ${scope}`] = (await made.json()).token;
  }
  const entries = await built.stores.audit.count();
  // Beside real routes: another method on a real path, a sub-path, a path of no route, the device API's.
  const unlisted: [string, string][] = [
    ["PUT", "/api/v1/devices/dev-1"],
    ["POST", "/api/v1/device_types"],
    ["DELETE", "/api/v1/operators/someone"],
    ["DELETE", "/api/v1/audit"],
    ["GET", "/api/v1/devices/dev-1/secrets"],
    ["POST", "/api/v1/admin/shutdown"],
    ["POST", "/api/v1/device/dev-1/reboot"],
    ["DELETE", "/api/v1/device/dev-1/checkin"],
  ];
  const wrong: string[] = [];
  for (const [method, path] of unlisted) {
    for (const [who, token] of Object.entries(credentials)) {
      const res = await call(path, { method, token, json: method === "GET" ? undefined : {} });
      const body = await res.json();
      if (res.status !== 404 || body.error !== "not_found") wrong.push(`${who} ${method} ${path}: ${res.status}`);
    }
  }
  assert.deepEqual(wrong, []);
  assert.equal(await built.stores.audit.count(), entries, "an unlisted request changed nothing");
});

Deno.test("mount: no route file imports another; services/ speak no HTTP", async () => {
  const problems: string[] = [];
  for (const dir of ["server/routes", "server/services"]) {
    for await (const entry of Deno.readDir(new URL(`../../${dir}/`, import.meta.url))) {
      if (!entry.name.endsWith(".ts")) continue;
      const source = await Deno.readTextFile(new URL(`../../${dir}/${entry.name}`, import.meta.url));
      for (const [, specifier] of source.matchAll(/\bfrom\s+"([^"]+)"/g)) {
        const sibling = specifier.startsWith("./");
        if (dir === "server/routes" && sibling) problems.push(`${dir}/${entry.name} imports ${specifier}`);
        if (dir === "server/services" && (specifier === "hono" || /\/routes\//.test(specifier))) {
          problems.push(`${dir}/${entry.name} imports ${specifier}`);
        }
      }
    }
  }
  assert.deepEqual(problems, []);
});

Deno.test("mount: a lean form needs its guard's lean form and an entry of path parameters, query and JSON body only", () => {
  const guards = {
    operator: () => (_c: unknown, next: () => Promise<void>) => next(),
    device: () => (_c: unknown, next: () => Promise<void>) => next(),
    ddi: () => (_c: unknown, next: () => Promise<void>) => next(),
  };
  const lean = () => Promise.resolve({});
  // No lean form of the device guard: refused at start, not served without its guard.
  assert.throws(
    () => mount(apiApp(guards), routes.deviceCheckin, (c) => c.json({}), { lean }),
    /its guard \(device\) has no lean form/,
  );
  const api = apiApp(guards, undefined, { device: () => () => Promise.resolve({}), operator: () => undefined });
  mount(api, routes.deviceCheckin, (c) => c.json({}), { lean });
  assert.deepEqual([...api.lean.keys()], [routes.deviceCheckin]);
  // The operator guard here has no lean form either.
  assert.throws(
    () => mount(api, routes.listDevices, (c) => c.json({}), { lean }),
    /its guard \(operator\) has no lean form/,
  );
  // An If-Match is Hono's alone.
  assert.throws(
    () => mount(api, routes.patchDevice, (c) => c.json({}), { lean }),
    /path parameters, query and JSON body only/,
  );
  // A query is read by the lean form (by the entry's schema, as Hono's validator reads it).
  const withQuery = apiApp(guards, undefined, { operator: () => () => Promise.resolve({}) });
  mount(withQuery, routes.listDevices, (c) => c.json({}), { lean });
  assert.deepEqual([...withQuery.lean.keys()], [routes.listDevices]);
});
