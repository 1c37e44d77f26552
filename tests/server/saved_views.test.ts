/**
 * Saved views and preferences per operator over HTTP (docs/DECISIONS.md, "Saved views"): kept on the server, checked
 * with GET devices' filter schema, unique names, a cap, owner-only changes, shared views, an admin's audited delete,
 * API tokens read but never write them, and a saved view's query opens the devices list it describes.
 */
import assert from "node:assert/strict";
import { ADMIN, type TestApp, testApp } from "../routes/app.ts";

const [ADMIN_EMAIL, ADMIN_PASSWORD] = [ADMIN.email, ADMIN.password];

async function call(srv: TestApp, token: string, method: string, path: string, body?: unknown) {
  const res = await srv.request(`/api/v1${path}`, {
    method,
    token,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

async function signIn(srv: TestApp, email: string, password: string): Promise<string> {
  const r = await call(srv, "", "POST", "/login", { email, password });
  assert.equal(r.status, 200);
  return r.json.token;
}

Deno.test("saved views: per operator on the server, shared, owner-only, capped; a view opens its list", async (t) => {
  await using srv = await testApp();
  const admin = await signIn(srv, ADMIN_EMAIL, ADMIN_PASSWORD);
  for (const [email, role] of [["op@example.com", "operator"], ["viewer@example.com", "viewer"]]) {
    const made = await call(srv, admin, "POST", "/operators", { email, role, password: "pass-word-123" });
    assert.equal(made.status, 201);
  }
  const op = await signIn(srv, "op@example.com", "pass-word-123");
  const viewer = await signIn(srv, "viewer@example.com", "pass-word-123");
  for (const [id, app] of [["sv-1", "1.0.0"], ["sv-2", "2.0.0"], ["sv-3", "2.0.0"]]) {
    await srv.device(id).checkin({
      versionInfo: { app, os: "linux", channels: [] },
    });
  }
  let viewId = "";

  await t.step("POST saved_views: 201 with the view; the query is GET devices' filters and sort", async () => {
    const made = await call(srv, op, "POST", "/saved_views", {
      name: "  App 2  ",
      query: { app: "2.0.0", sort: "deviceId", order: "desc" },
      shared: true,
    });
    assert.equal(made.status, 201, JSON.stringify(made.json));
    viewId = made.json._id;
    assert.deepEqual({ ...made.json, _id: "", createdAt: "", updatedAt: "" }, {
      _id: "",
      name: "App 2",
      query: { app: "2.0.0", sort: "deviceId", order: "desc" },
      shared: true,
      owner: "op@example.com",
      createdAt: "",
      updatedAt: "",
    });
  });

  await t.step("bad input: 400 naming the field, never stored", async () => {
    for (
      const [body, field] of [
        [{ name: "x", query: { seen: "yesterday" } }, "query.seen"],
        [{ name: "x", query: { sort: "color" } }, "query.sort"],
        [{ name: "x", query: { page: "2" } }, "page"],
        [{ name: "", query: {} }, "name"],
        [{ name: "x".repeat(101), query: {} }, "name"],
        [{ name: "x" }, "query"],
        [{ name: "x", query: {}, shared: "yes" }, "shared"],
      ] as const
    ) {
      const r = await call(srv, op, "POST", "/saved_views", body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.json.error, "invalid_request");
      assert.ok(r.json.msg.includes(field), `${r.json.msg} names ${field}`);
    }
    const patch = await call(srv, op, "PATCH", `/saved_views/${viewId}`, {});
    assert.equal(patch.status, 400);
    assert.equal((await call(srv, op, "GET", "/saved_views")).json.length, 1);
  });

  await t.step("a name is the operator's once, ignoring case: 409", async () => {
    const again = await call(srv, op, "POST", "/saved_views", { name: "app 2", query: {} });
    assert.equal(again.status, 409);
    assert.equal(again.json.error, "conflict");
    assert.match(again.json.msg, /already have a saved view named "app 2"/);
    const viewers = await call(srv, viewer, "POST", "/saved_views", { name: "App 2", query: { seen: "never" } });
    assert.equal(viewers.status, 201, "a viewer keeps views of their own, under any name another operator uses");
  });

  await t.step("GET saved_views: one's own and the shared ones; private ones stay private", async () => {
    const names = async (token: string) =>
      (await call(srv, token, "GET", "/saved_views")).json.map((v: { name: string; owner: string }) =>
        `${v.name} (${v.owner})`
      );
    assert.deepEqual(await names(op), ["App 2 (op@example.com)"]);
    assert.deepEqual(await names(viewer), ["App 2 (op@example.com)", "App 2 (viewer@example.com)"]);
    assert.deepEqual(await names(admin), ["App 2 (op@example.com)"]);
  });

  await t.step("the saved query opens the same list on GET devices", async () => {
    const [view] = (await call(srv, admin, "GET", "/saved_views")).json;
    const list = await call(srv, admin, "GET", `/devices?${new URLSearchParams(view.query)}`);
    assert.equal(list.status, 200);
    assert.deepEqual(list.json.data.map((d: { deviceId: string }) => d.deviceId), ["sv-3", "sv-2"]);
  });

  await t.step(
    "PATCH: the owner renames, reshares, changes the query; others cannot (403 shared, 404 private)",
    async () => {
      const renamed = await call(srv, op, "PATCH", `/saved_views/${viewId}`, {
        name: "App two",
        query: { app: "1.0.0" },
      });
      assert.equal(renamed.status, 200);
      assert.equal(renamed.json.name, "App two");
      assert.deepEqual(renamed.json.query, { app: "1.0.0" });
      assert.ok(renamed.json.updatedAt >= renamed.json.createdAt);
      const byViewer = await call(srv, viewer, "PATCH", `/saved_views/${viewId}`, { name: "Mine" });
      assert.equal(byViewer.status, 403);
      assert.equal(byViewer.json.error, "forbidden");
      const byAdmin = await call(srv, admin, "PATCH", `/saved_views/${viewId}`, { shared: false });
      assert.equal(byAdmin.status, 403);
      const viewersOwn = (await call(srv, viewer, "GET", "/saved_views")).json.find((v: { owner: string }) =>
        v.owner === "viewer@example.com"
      );
      const hidden = await call(srv, op, "PATCH", `/saved_views/${viewersOwn._id}`, { shared: true });
      assert.equal(hidden.status, 404);
      assert.equal((await call(srv, op, "DELETE", `/saved_views/${viewersOwn._id}`)).status, 404);
      assert.equal((await call(srv, op, "PATCH", "/saved_views/no-such-view", { shared: true })).status, 404);
    },
  );

  await t.step("API tokens read saved views (read scope) and never write them", async () => {
    const made = await call(srv, op, "POST", "/api_tokens", { name: "CI", scopes: ["read", "devices:write"] });
    assert.equal(made.status, 201);
    const token = made.json.token;
    const listed = await call(srv, token, "GET", "/saved_views");
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.json.map((v: { name: string }) => v.name), ["App two"]);
    assert.equal((await call(srv, token, "GET", "/me/preferences")).status, 200);
    for (
      const [method, path, body] of [
        ["POST", "/saved_views", { name: "by token", query: {} }],
        ["PATCH", `/saved_views/${viewId}`, { shared: false }],
        ["DELETE", `/saved_views/${viewId}`, undefined],
        ["PATCH", "/me/preferences", { deviceColumns: null }],
      ] as const
    ) {
      const r = await call(srv, token, method, path, body);
      assert.equal(r.status, 403, `${method} ${path}`);
      assert.match(r.json.msg, /No API token may do this/);
    }
  });

  await t.step("DELETE: an admin deletes a shared view (audited); the owner's own deletions are not", async () => {
    const other = await call(srv, op, "POST", "/saved_views", { name: "Private", query: {} });
    assert.equal((await call(srv, viewer, "DELETE", `/saved_views/${viewId}`)).status, 403);
    assert.equal((await call(srv, admin, "DELETE", `/saved_views/${other.json._id}`)).status, 404);
    assert.equal((await call(srv, admin, "DELETE", `/saved_views/${viewId}`)).status, 204);
    assert.equal((await call(srv, admin, "DELETE", `/saved_views/${viewId}`)).status, 404);
    assert.equal((await call(srv, op, "DELETE", `/saved_views/${other.json._id}`)).status, 204);
    const trail = await call(srv, admin, "GET", "/audit?targetType=saved_view");
    assert.equal(trail.status, 200);
    assert.deepEqual(
      trail.json.data.map((e: { action: string; actor: { name: string }; target: { name: string } }) => [
        e.action,
        e.actor.name,
        e.target.name,
      ]),
      [["saved_view.delete", ADMIN_EMAIL, "App two"]],
    );
  });

  await t.step("at most 50 views per operator: the 51st is 409 with a clear message", async () => {
    for (let i = 0; i < 50; i++) {
      const r = await call(srv, op, "POST", "/saved_views", { name: `View ${i}`, query: { q: `dev-${i}` } });
      assert.equal(r.status, 201);
    }
    const over = await call(srv, op, "POST", "/saved_views", { name: "One more", query: {} });
    assert.equal(over.status, 409);
    assert.match(over.json.msg, /at most 50 saved views: delete one/);
  });

  await t.step("preferences: the device columns per operator, kept until reset", async () => {
    assert.deepEqual((await call(srv, viewer, "GET", "/me/preferences")).json, { deviceColumns: null });
    const set = await call(srv, viewer, "PATCH", "/me/preferences", { deviceColumns: ["deviceId", "app", "os"] });
    assert.equal(set.status, 200);
    assert.deepEqual((await call(srv, viewer, "GET", "/me/preferences")).json, {
      deviceColumns: ["deviceId", "app", "os"],
    });
    assert.deepEqual((await call(srv, op, "GET", "/me/preferences")).json, { deviceColumns: null });
    const bad = await call(srv, viewer, "PATCH", "/me/preferences", { deviceColumns: ["deviceId", "deviceId"] });
    assert.equal(bad.status, 400);
    assert.match(bad.json.msg, /deviceColumns: must not contain duplicates/);
    const odd = await call(srv, viewer, "PATCH", "/me/preferences", { deviceColumns: ["<script>"] });
    assert.equal(odd.status, 400);
    const reset = await call(srv, viewer, "PATCH", "/me/preferences", { deviceColumns: null });
    assert.deepEqual(reset.json, { deviceColumns: null });
  });
});
