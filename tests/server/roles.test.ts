/**
 * Roles (docs/REQUIREMENTS.md §12): a matrix of every operator route × every role, and of every operator route × every API token
 * scope, read from the route table (a route a role or scope may call but should not fails, and the reverse); operator accounts managed by admins; demoting or disabling ends
 * sessions at once; the last active admin is kept.
 */
import assert from "node:assert/strict";
import { fillPath, paramNames, requiredRole, requiredScope, routeList, scopesAllow } from "../../shared/routes/mod.ts";
import { SCOPES } from "../../shared/schemas/api_token.ts";
import { type Role, roleAllows } from "../../shared/schemas/operator.ts";
import { ADMIN, type TestApp, testApp } from "../routes/app.ts";

const [ADMIN_EMAIL, ADMIN_PASSWORD] = [ADMIN.email, ADMIN.password];

const ROLES: Role[] = ["viewer", "operator", "admin"];

async function signIn(srv: TestApp, email: string, password: string): Promise<string> {
  const res = await srv.request("/api/v1/login", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  assert.equal(res.status, 200, `sign-in of ${email}`);
  return (await res.json()).token;
}

async function call(srv: TestApp, token: string, method: string, path: string, body?: unknown) {
  const res = await srv.request(path, {
    method,
    token,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const isJson = res.headers.get("content-type")?.includes("json");
  return { status: res.status, json: text && isJson ? JSON.parse(text) : null };
}

Deno.test("roles: every operator route × every role; admins manage operators", async (t) => {
  await using srv = await testApp();
  const admin = await signIn(srv, ADMIN_EMAIL, ADMIN_PASSWORD);
  const tokens: Record<Role, string> = { admin, operator: "", viewer: "" };
  const ids: Record<string, string> = {};

  await t.step("GET me; admins add operators with a role (default operator)", async () => {
    assert.deepEqual((await call(srv, admin, "GET", "/api/v1/me")).json, { email: ADMIN_EMAIL, role: "admin" });
    const op = await call(srv, admin, "POST", "/api/v1/operators", {
      email: "op@example.com",
      password: "op-pass-123",
    });
    assert.equal(op.status, 201);
    assert.equal(op.json.role, "operator");
    const viewer = await call(srv, admin, "POST", "/api/v1/operators", {
      email: "viewer@example.com",
      role: "viewer",
      password: "viewer-pass-1",
    });
    assert.equal(viewer.status, 201);
    ids.operator = op.json._id;
    ids.viewer = viewer.json._id;
    const again = await call(srv, admin, "POST", "/api/v1/operators", {
      email: "OP@example.com",
      password: "x-pass-123",
    });
    assert.equal(again.status, 409);
    tokens.operator = await signIn(srv, "op@example.com", "op-pass-123");
    tokens.viewer = await signIn(srv, "viewer@example.com", "viewer-pass-1");
    assert.deepEqual((await call(srv, tokens.viewer, "GET", "/api/v1/me")).json, {
      email: "viewer@example.com",
      role: "viewer",
    });
  });

  await t.step("the matrix: 403 exactly where the role is below the route's", async () => {
    const wrong: string[] = [];
    for (const route of routeList.filter((r) => r.auth === "operator")) {
      const params = Object.fromEntries(paramNames(route.path).map((n) => [n, "matrix-no-such-id"]));
      const path = `/api/v1${fillPath(route.path, params)}`;
      const body = route.body.kind === "json" ? {} : undefined;
      for (const role of ROLES) {
        const { status, json } = await call(srv, tokens[role], route.method, path, body);
        const allowed = roleAllows(role, requiredRole(route));
        if (allowed === (status === 403)) wrong.push(`${role} ${route.method} ${path}: ${status}`);
        if (status === 403) assert.equal(json.error, "forbidden");
      }
    }
    assert.deepEqual(wrong, []);
  });

  await t.step("the scope matrix: an admin's API token gets 403 exactly where its scope falls short", async () => {
    const scoped: Record<string, string> = {};
    for (const scope of SCOPES) {
      const made = await call(srv, admin, "POST", "/api/v1/api_tokens", { name: `only ${scope}`, scopes: [scope] });
      assert.equal(made.status, 201);
      scoped[scope] = made.json.token;
    }
    const wrong: string[] = [];
    for (const route of routeList.filter((r) => r.auth === "operator")) {
      const params = Object.fromEntries(paramNames(route.path).map((n) => [n, "matrix-no-such-id"]));
      const path = `/api/v1${fillPath(route.path, params)}`;
      const body = route.body.kind === "json" ? {} : undefined;
      for (const scope of SCOPES) {
        const { status, json } = await call(srv, scoped[scope], route.method, path, body);
        const allowed = scopesAllow([scope], requiredScope(route));
        if (allowed === (status === 403) || status === 401) wrong.push(`${scope} ${route.method} ${path}: ${status}`);
        if (status === 403) assert.equal(json.error, "forbidden");
      }
    }
    assert.deepEqual(wrong, []);
  });

  await t.step("a viewer reads but changes nothing; an operator writes but manages no operator", async () => {
    assert.equal((await call(srv, tokens.viewer, "GET", "/api/v1/devices")).status, 200);
    const refused = await call(srv, tokens.viewer, "POST", "/api/v1/product_types", { name: "Viewer's type" });
    assert.equal(refused.status, 403);
    assert.match(refused.json.msg, /operator role; you are signed in as viewer/);
    assert.equal((await call(srv, admin, "GET", "/api/v1/product_types")).json.length, 0);
    assert.equal((await call(srv, tokens.operator, "POST", "/api/v1/product_types", { name: "Op type" })).status, 201);
    assert.equal((await call(srv, tokens.operator, "GET", "/api/v1/operators")).status, 403);
    // Any role changes its own password.
    const changed = await call(srv, tokens.viewer, "POST", "/api/v1/change_password", {
      old_password: "viewer-pass-1",
      new_password: "viewer-pass-2",
    });
    assert.equal(changed.status, 200);
    tokens.viewer = await signIn(srv, "viewer@example.com", "viewer-pass-2");
  });

  await t.step("demoting or disabling ends the sessions at once; a disabled operator cannot sign in", async () => {
    assert.equal(
      (await call(srv, admin, "PATCH", `/api/v1/operators/${ids.operator}`, { role: "viewer" })).status,
      200,
    );
    assert.equal((await call(srv, tokens.operator, "GET", "/api/v1/devices")).status, 401);
    tokens.operator = await signIn(srv, "op@example.com", "op-pass-123");
    assert.equal((await call(srv, tokens.operator, "POST", "/api/v1/product_types", { name: "X" })).status, 403);
    const off = await call(srv, admin, "PATCH", `/api/v1/operators/${ids.operator}`, { disabled: true });
    assert.equal(off.json.disabled, true);
    assert.equal((await call(srv, tokens.operator, "GET", "/api/v1/devices")).status, 401);
    const login = await call(srv, "", "POST", "/api/v1/login", { email: "op@example.com", password: "op-pass-123" });
    assert.deepEqual([login.status, login.json.error], [401, "invalid_credentials"]);
  });

  await t.step("reset a password; the last active admin is kept (409); unknown ids 404", async () => {
    const reset = await call(srv, admin, "POST", `/api/v1/operators/${ids.viewer}/reset_password`, {
      password: "viewer-pass-3",
    });
    assert.equal(reset.status, 200);
    assert.equal((await call(srv, tokens.viewer, "GET", "/api/v1/devices")).status, 401);
    await signIn(srv, "viewer@example.com", "viewer-pass-3");
    const me = (await call(srv, admin, "GET", "/api/v1/operators")).json.find((o: { email: string }) =>
      o.email === ADMIN_EMAIL
    );
    for (const patch of [{ role: "operator" }, { disabled: true }]) {
      const kept = await call(srv, admin, "PATCH", `/api/v1/operators/${me._id}`, patch);
      assert.deepEqual([kept.status, kept.json.error], [409, "conflict"]);
      assert.match(kept.json.msg, /last active admin/);
    }
    assert.equal((await call(srv, admin, "GET", "/api/v1/me")).status, 200, "the refused change ended nothing");
    const missing = await call(srv, admin, "PATCH", "/api/v1/operators/no-such-operator", { role: "viewer" });
    assert.equal(missing.status, 404);
    const bad = await call(srv, admin, "PATCH", `/api/v1/operators/${ids.viewer}`, { role: "root" });
    assert.equal(bad.status, 400);
  });
});
