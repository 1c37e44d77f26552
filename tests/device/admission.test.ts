/**
 * Device identity and admission (docs/REQUIREMENTS.md §11) against the real server: DEVICE_AUTH=shared as before, DEVICE_AUTH=token
 * with manual and auto admission, tokens bound to their deviceId, resets, rejections, the enrolment key refused
 * outside enroll, device tokens refused on the operator API, the 429 of repeated failures, and the operator routes.
 */
import assert from "node:assert/strict";
import { DEVICE_API_KEY, startServer, type TestServer } from "../../testing/server.ts";

const VERSION = { app: "1.0.0", os: "linux-6.1", channels: [] as string[] };

async function deviceCall(srv: TestServer, method: string, path: string, key: string | null, body?: unknown) {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers["content-type"] = "application/json";
  if (key !== null) headers.authorization = `Bearer ${key}`;
  const res = await srv.fetch(`/api/v1/device/${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: Record<string, unknown> | null = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch { /* firmware bytes */ }
  return { status: res.status, json: json as Record<string, unknown> & { token?: string }, headers: res.headers };
}

const enroll = (srv: TestServer, id: string, key: string | null = DEVICE_API_KEY) =>
  deviceCall(srv, "POST", `${id}/enroll`, key, { versionInfo: VERSION });
const checkin = (srv: TestServer, id: string, key: string | null) =>
  deviceCall(srv, "POST", `${id}/checkin`, key, { versionInfo: VERSION });

async function operator(srv: TestServer, method: string, path: string, token: string, body?: unknown) {
  const res = await srv.fetch(`/api/v1/${path}`, {
    method,
    token,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

Deno.test("DEVICE_AUTH=shared: as before; every device accepted without credentials; enroll and admission 409", async () => {
  await using srv = await startServer();
  const api = await srv.login();
  assert.equal((await checkin(srv, "shared-1", DEVICE_API_KEY)).status, 200);
  const device = await api.getDevice("shared-1");
  assert.equal(device.admission, "accepted");
  assert.equal(device.credentialsIssuedAt, null);
  const enrolled = await enroll(srv, "shared-2");
  assert.deepEqual([enrolled.status, enrolled.json.error], [409, "conflict"]);
  assert.equal((await enroll(srv, "shared-2", "wrong-key-0123456789")).status, 401);
  for (const action of ["accept", "reject", "reset_credentials"]) {
    const r = await operator(srv, "POST", `devices/shared-1/${action}`, api.token);
    assert.deepEqual([r.status, r.json.error], [409, "conflict"], action);
    assert.equal((await operator(srv, "POST", `devices/no-such/${action}`, api.token)).status, 404);
  }
  // Pre-authorizing works in both modes (it records an accepted device), and the filter sees all as accepted.
  assert.equal((await operator(srv, "POST", "devices", api.token, { deviceId: "shared-3" })).status, 201);
  assert.equal((await api.listDevices({ admission: "accepted" })).total, 2);
  assert.equal((await api.listDevices({ admission: "pending" })).total, 0);
  assert.deepEqual(await api.deviceAdmission(), {
    auth: "shared",
    admission: "manual",
    counts: { pending: 0, accepted: 2, rejected: 0 },
  });
  // The shared key keeps working for every device, including many wrong keys (no throttle in shared mode).
  for (let i = 0; i < 5; i++) assert.equal((await checkin(srv, "shared-1", "wrong-key-0123456789")).status, 401);
  assert.equal((await checkin(srv, "shared-1", DEVICE_API_KEY)).status, 200);
});

Deno.test("DEVICE_AUTH=token, manual admission: enrol, wait, accept, token per device", async (t) => {
  await using srv = await startServer({ env: { DEVICE_AUTH: "token" } });
  const api = await srv.login();
  const tokens: Record<string, string> = {};

  await t.step("an unknown device is pending (202), again while pending; nothing else works for it", async () => {
    const first = await enroll(srv, "dev-a");
    assert.deepEqual([first.status, first.json], [202, { status: "pending" }]);
    assert.deepEqual((await enroll(srv, "dev-a")).status, 202);
    assert.equal((await enroll(srv, "dev-b")).status, 202);
    const device = await api.getDevice("dev-a");
    assert.equal(device.admission, "pending");
    assert.equal(device.credentialsIssuedAt, null);
    assert.deepEqual(device.versionInfo, VERSION);
    assert.equal(device.lastLoggedIn, null);
    // The enrolment key is good only for enroll.
    const withKey = await checkin(srv, "dev-a", DEVICE_API_KEY);
    assert.deepEqual([withKey.status, withKey.json.error], [401, "unauthorized"]);
    assert.equal((await deviceCall(srv, "GET", "dev-a/config", DEVICE_API_KEY)).status, 401);
    assert.equal((await deviceCall(srv, "GET", "dev-a/firmware", DEVICE_API_KEY)).status, 401);
    // A wrong enrolment key is 401 and records nothing.
    assert.equal((await enroll(srv, "dev-z", "wrong-key-0123456789")).status, 401);
    assert.equal((await enroll(srv, "dev-z", null)).status, 401);
    assert.equal((await operator(srv, "GET", "devices/dev-z", api.token)).status, 404);
  });

  await t.step("the admission filter and the counts", async () => {
    const pending = await api.listDevices({ admission: "pending" });
    assert.deepEqual(pending.data.map((d) => d.deviceId), ["dev-a", "dev-b"]);
    assert.equal((await api.listDevices({ admission: "accepted" })).total, 0);
    assert.equal((await api.listDevices({ admission: "pending", q: "-B" })).total, 1);
    const bad = await operator(srv, "GET", "devices?admission=waiting", api.token);
    assert.equal(bad.status, 400);
    assert.match(bad.json.msg, /admission/);
    assert.deepEqual((await api.deviceAdmission()).counts, { pending: 2, accepted: 0, rejected: 0 });
  });

  await t.step("accepted: the next enrolment gets a token (201), once; then 409", async () => {
    const accepted = await api.acceptDevice("dev-a");
    assert.equal(accepted.admission, "accepted");
    assert.equal(accepted.credentialsIssuedAt, null);
    const issued = await enroll(srv, "dev-a");
    assert.equal(issued.status, 201);
    assert.equal(issued.headers.get("cache-control"), "no-store");
    const token = issued.json.token!;
    assert.match(token, /^tdd_[A-Za-z0-9_-]{43}$/, "256 random bits, base64url");
    tokens["dev-a"] = token;
    const again = await enroll(srv, "dev-a");
    assert.deepEqual([again.status, again.json.error], [409, "conflict"]);
    const device = await api.getDevice("dev-a");
    assert.ok(device.credentialsIssuedAt);
    assert.equal(JSON.stringify(device).includes(token), false);
  });

  await t.step("the token checks in, reads its config and firmware; only on its own paths", async () => {
    const first = await checkin(srv, "dev-a", tokens["dev-a"]);
    assert.equal(first.status, 200);
    assert.equal(first.json.deviceId, "dev-a");
    assert.ok((await api.getDevice("dev-a")).lastLoggedIn);
    assert.equal((await deviceCall(srv, "GET", "dev-a/config", tokens["dev-a"])).status, 200);
    assert.equal((await deviceCall(srv, "GET", "dev-a/firmware", tokens["dev-a"])).status, 404, "no firmware set");
    // Another device's path: 401, for every call, and nothing is created or changed.
    for (const [method, path] of [["POST", "dev-b/checkin"], ["GET", "dev-b/config"], ["GET", "dev-b/firmware"]]) {
      const r = await deviceCall(
        srv,
        method,
        path,
        tokens["dev-a"],
        method === "POST" ? { versionInfo: VERSION } : undefined,
      );
      assert.deepEqual([r.status, r.json?.error], [401, "unauthorized"], path);
    }
    assert.equal((await checkin(srv, "dev-new", tokens["dev-a"])).status, 401);
    assert.equal((await operator(srv, "GET", "devices/dev-new", api.token)).status, 404);
    assert.equal((await api.getDevice("dev-b")).lastLoggedIn, null);
    // A token with one character changed, no token, an operator token: 401.
    const forged = tokens["dev-a"].slice(0, -1) + (tokens["dev-a"].endsWith("A") ? "B" : "A");
    assert.equal((await checkin(srv, "dev-a", forged)).status, 401);
    assert.equal((await checkin(srv, "dev-a", null)).status, 401);
    assert.equal((await checkin(srv, "dev-a", api.token)).status, 401);
  });

  await t.step("a device token is not an operator token", async () => {
    for (const path of ["devices", "devices/dev-a", "device_admission", "me"]) {
      const r = await operator(srv, "GET", path, tokens["dev-a"]);
      assert.deepEqual([r.status, r.json.error], [401, "unauthorized"], path);
    }
    assert.equal((await operator(srv, "POST", "devices/dev-b/accept", tokens["dev-a"])).status, 401);
    assert.equal((await api.getDevice("dev-b")).admission, "pending");
  });

  await t.step("reset credentials: the token stops at once; the device enrols again for a new one", async () => {
    const reset = await api.resetDeviceCredentials("dev-a");
    assert.equal(reset.admission, "accepted");
    assert.equal(reset.credentialsIssuedAt, null);
    assert.equal((await checkin(srv, "dev-a", tokens["dev-a"])).status, 401);
    const fresh = await enroll(srv, "dev-a");
    assert.equal(fresh.status, 201);
    assert.notEqual(fresh.json.token, tokens["dev-a"]);
    assert.equal((await checkin(srv, "dev-a", tokens["dev-a"])).status, 401, "the old token stays dead");
    assert.equal((await checkin(srv, "dev-a", fresh.json.token!)).status, 200);
    tokens["dev-a"] = fresh.json.token!;
  });

  await t.step("rejected: enrolment 403, its token dead; accepting again lets it enrol", async () => {
    const rejected = await api.rejectDevice("dev-a");
    assert.equal(rejected.admission, "rejected");
    assert.equal(rejected.credentialsIssuedAt, null);
    assert.equal((await checkin(srv, "dev-a", tokens["dev-a"])).status, 401);
    const refused = await enroll(srv, "dev-a");
    assert.deepEqual([refused.status, refused.json.error], [403, "forbidden"]);
    assert.equal((await api.rejectDevice("dev-b")).admission, "rejected");
    assert.equal((await enroll(srv, "dev-b")).status, 403);
    assert.deepEqual((await api.deviceAdmission()).counts, { pending: 0, accepted: 0, rejected: 2 });
    await api.acceptDevice("dev-a");
    assert.equal((await enroll(srv, "dev-a")).status, 201);
  });

  await t.step("pre-authorized ids get their token at the first enrolment; known ids are 409 or listed", async () => {
    const one = await operator(srv, "POST", "devices", api.token, { deviceId: "factory-1" });
    assert.equal(one.status, 201);
    assert.deepEqual([one.json.admission, one.json.credentialsIssuedAt, one.json.lastLoggedIn], [
      "accepted",
      null,
      null,
    ]);
    const dup = await operator(srv, "POST", "devices", api.token, { deviceId: "factory-1" });
    assert.deepEqual([dup.status, dup.json.error], [409, "conflict"]);
    const many = await api.preauthorizeDevices(["factory-2", "factory-3", "factory-2", "dev-b", "factory-1"]);
    assert.deepEqual(many, {
      created: ["factory-2", "factory-3"],
      existing: [{ deviceId: "dev-b", admission: "rejected" }, { deviceId: "factory-1", admission: "accepted" }],
    });
    const bad = await operator(srv, "POST", "devices/preauthorize", api.token, { deviceIds: ["ok-1", "bad id"] });
    assert.equal(bad.status, 400);
    assert.equal((await operator(srv, "GET", "devices/ok-1", api.token)).status, 404, "a refused list adds nothing");
    for (const id of ["factory-1", "factory-2", "factory-3"]) {
      const r = await enroll(srv, id);
      assert.equal(r.status, 201, id);
      assert.equal((await checkin(srv, id, r.json.token!)).status, 200);
    }
    assert.equal((await operator(srv, "POST", "devices/no-such/accept", api.token)).status, 404);
  });

  await t.step("every admission action is in the audit trail, with its actor", async () => {
    const trail = async (id: string) =>
      ((await operator(srv, "GET", `audit?targetType=device&targetId=${id}&rowsPerPage=100`, api.token)).json
        .data as { action: string; actor: { type: string; id: string }; details: Record<string, unknown> }[])
        .reverse();
    const a = await trail("dev-a");
    assert.deepEqual(a.map((e) => `${e.actor.type} ${e.action} ${e.details.result ?? e.details.to ?? ""}`), [
      "device device.enroll pending",
      "operator device.accept accepted",
      "device device.enroll token_issued",
      "device device.enroll refused",
      "operator device.reset_credentials accepted",
      "device device.enroll token_issued",
      "operator device.reject rejected",
      "operator device.accept accepted",
      "device device.enroll token_issued",
    ]);
    assert.equal(a[0].actor.id, "dev-a");
    assert.equal(JSON.stringify(a).includes("tdd_"), false, "no token in the trail");
    assert.deepEqual((await trail("factory-2")).map((e) => `${e.actor.type} ${e.action}`), [
      "operator device.preauthorize",
      "device device.enroll",
    ]);
  });

  await t.step("a deleted device's token is dead; it enrols as a new device", async () => {
    const r = await operator(srv, "GET", "devices/factory-3", api.token);
    assert.equal(r.status, 200);
    const token = (await operator(srv, "POST", "devices/factory-3/reset_credentials", api.token)).json;
    assert.equal(token.credentialsIssuedAt, null);
    const issued = await enroll(srv, "factory-3");
    await api.deleteDevice("factory-3");
    assert.equal((await checkin(srv, "factory-3", issued.json.token!)).status, 401);
    assert.equal((await enroll(srv, "factory-3")).status, 202);
  });
});

Deno.test("DEVICE_AUTH=token, auto admission: a new device gets its token at once", async () => {
  const METRICS_TOKEN = "metrics-token-0123456789";
  await using srv = await startServer({ env: { DEVICE_AUTH: "token", DEVICE_ADMISSION: "auto", METRICS_TOKEN } });
  const api = await srv.login();
  const issued = await enroll(srv, "auto-1");
  assert.equal(issued.status, 201);
  assert.equal((await enroll(srv, "auto-1")).status, 409);
  assert.equal((await checkin(srv, "auto-1", issued.json.token!)).status, 200);
  const device = await api.getDevice("auto-1");
  assert.equal(device.admission, "accepted");
  assert.ok(device.credentialsIssuedAt);
  // Rejected stays rejected, even under auto admission.
  await api.rejectDevice("auto-1");
  assert.equal((await enroll(srv, "auto-1")).status, 403);
  assert.deepEqual(await api.deviceAdmission(), {
    auth: "token",
    admission: "auto",
    counts: { pending: 0, accepted: 0, rejected: 1 },
  });
  // docs/REQUIREMENTS.md §14: devices by admission, and the tokens issued.
  assert.equal((await enroll(srv, "auto-2")).status, 201);
  const metrics = await (await srv.fetch("/metrics", { token: METRICS_TOKEN })).text();
  assert.match(metrics, /^console_devices\{admission="accepted"\} 1$/m);
  assert.match(metrics, /^console_devices\{admission="rejected"\} 1$/m);
  assert.match(metrics, /^console_devices\{admission="pending"\} 0$/m);
  assert.match(metrics, /^console_device_enrolments_total 2$/m);
});

Deno.test("DEVICE_AUTH=token: repeated failures of one device from one address are refused with 429", async () => {
  await using srv = await startServer({
    env: { DEVICE_AUTH: "token", DEVICE_ADMISSION: "auto", DEVICE_AUTH_MAX_FAILURES: "5" },
  });
  const issued = await enroll(srv, "victim-1");
  const token = issued.json.token!;
  for (let i = 0; i < 5; i++) {
    assert.equal((await checkin(srv, "victim-1", `tdd_guess${i}`)).status, 401);
  }
  const refused = await checkin(srv, "victim-1", token);
  assert.deepEqual([refused.status, refused.json.error], [429, "too_many_requests"]);
  assert.ok(Number(refused.headers.get("retry-after")) >= 1);
  assert.match(String(refused.json.msg), /try again in/);
  // Counted per device and address: another device behind the same address enrols and checks in as usual.
  const neighbour = await enroll(srv, "victim-2");
  assert.equal(neighbour.status, 201);
  assert.equal((await checkin(srv, "victim-2", neighbour.json.token!)).status, 200);
  // The enrolment key is shared by the fleet: wrong ones are counted per address, the right one always enrols.
  for (let i = 0; i < 5; i++) {
    assert.equal((await enroll(srv, `victim-${3 + i}`, "wrong-enrolment-key-0123")).status, 401);
  }
  assert.equal((await enroll(srv, "victim-8", "wrong-enrolment-key-0123")).status, 429);
  assert.equal((await enroll(srv, "victim-8")).status, 201);
});

Deno.test("DEVICE_AUTH=token: devices from before the switch enrol once for a token", async () => {
  await using srv = await startServer({ keepData: true });
  assert.equal((await checkin(srv, "old-1", DEVICE_API_KEY)).status, 200);
  await srv.stop();
  await using srv2 = await startServer({ dataDir: srv.dataDir, env: { DEVICE_AUTH: "token", ...srv.engineEnv } });
  const api = await srv2.login();
  const old = await api.getDevice("old-1");
  assert.deepEqual([old.admission, old.credentialsIssuedAt], ["accepted", null]);
  assert.equal((await checkin(srv2, "old-1", DEVICE_API_KEY)).status, 401, "the old shared key no longer checks in");
  const issued = await enroll(srv2, "old-1");
  assert.equal(issued.status, 201);
  assert.equal((await checkin(srv2, "old-1", issued.json.token!)).status, 200);
  assert.equal((await enroll(srv2, "old-1")).status, 409);
});
