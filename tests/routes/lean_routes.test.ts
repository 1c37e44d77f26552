/**
 * The hot device routes answered below Hono (server/lean_routes.ts) answer exactly as the Hono routes do: the same
 * status, body and headers, the same console_http_* series and log line, for a good poll and for every kind of
 * refusal (which the lean path must leave to Hono), in both DEVICE_AUTH modes. The same requests go to the app and to
 * an app of the same stores with the lean routes off; each has its own throttle, so each is driven alike.
 */
import assert from "node:assert/strict";
import { createApp } from "../../server/app.ts";
import { leanAnswers } from "../../server/lean_routes.ts";
import type { RequestLine } from "../../server/lib/logger.ts";
import { metricsText } from "../../server/metrics.ts";
import { StoreUnavailableError } from "../../server/db/errors.ts";
import { fileSource } from "../../testing/files.ts";
import { makeImportDb } from "../../testing/import_db.ts";
import { issueToken } from "../../server/auth/tokens.ts";
import { ADMIN, DEVICE_KEY, testApp } from "./app.ts";

const VERSION = { app: "2.4.1", os: "5.10.0", channels: ["1.2"] };
const CHECKIN = "/api/v1/device/:deviceId/checkin";
const POLL = "/:tenant/controller/v1/:controllerId";

interface Call {
  name: string;
  path: string;
  init: RequestInit;
  /** Whether the lean path answers it itself (else it passes it to Hono). */
  lean: boolean;
}

const json = (body: unknown, headers: Record<string, string>): RequestInit => ({
  method: "POST",
  headers: { "Content-Type": "application/json", ...headers },
  body: typeof body === "string" ? body : JSON.stringify(body),
});
const withLength = (init: RequestInit): RequestInit => ({
  ...init,
  headers: { ...init.headers as Record<string, string>, "Content-Length": String((init.body as string).length) },
});

/** The count of one console_http_requests_total series. */
async function served(route: string, method: string, status: number): Promise<number> {
  const line = (await metricsText()).split("\n").find((l) =>
    l.startsWith(`console_http_requests_total{route="${route}",method="${method}",status="${status}"}`)
  );
  return line ? Number(line.split(" ").at(-1)) : 0;
}

async function compare(
  apps: { lean: (path: string, init: RequestInit) => Promise<Response>; hono: typeof apps.lean },
  lines: RequestLine[],
  call: Call,
) {
  const id = `req-${call.name.replace(/[^a-z0-9]+/gi, "-")}`;
  const init = () => ({
    ...call.init,
    headers: { ...call.init.headers as Record<string, string>, "X-Request-Id": id },
  });
  const answers = [];
  for (const which of ["lean", "hono"] as const) {
    const before = leanAnswers();
    lines.length = 0;
    const res = await apps[which](call.path, init());
    // A gzipped answer is compared as the text it holds (and by its headers, Content-Encoding among them).
    const body = res.headers.get("content-encoding") === "gzip"
      ? await new Response(res.body!.pipeThrough(new DecompressionStream("gzip"))).text()
      : await res.text();
    assert.equal(leanAnswers() - before, which === "lean" && call.lean ? 1 : 0, `${call.name}: answered by ${which}`);
    const line = lines.find((l) => l.requestId === id);
    answers.push({
      status: res.status,
      body,
      headers: [...res.headers].sort(),
      line: line && { ...line, ms: 0 },
    });
  }
  assert.deepEqual(answers[0], answers[1], call.name);
  return answers[0];
}

for (const mode of ["shared", "token"] as const) {
  Deno.test(`lean routes: the same answers as Hono's (DEVICE_AUTH=${mode})`, async () => {
    const lines: RequestLine[] = [];
    await using built = await testApp((ctx) => ({
      ...ctx,
      config: { ...ctx.config, DEVICE_AUTH: mode, DEVICE_ADMISSION: "auto", DEVICE_AUTH_MAX_FAILURES: 20 },
      logRequest: (line) => lines.push(line),
    }));
    const hono = createApp(built.ctx, { lean: false });
    const apps = {
      lean: (path: string, init: RequestInit) => Promise.resolve(built.app.request(path, init)),
      hono: (path: string, init: RequestInit) => Promise.resolve(hono.request(path, init)),
    };

    // A known device (checked in and polled once), with its token in token mode.
    let token = DEVICE_KEY;
    if (mode === "token") {
      const res = await apps.hono(
        "/api/v1/device/known-1/enroll",
        json({ versionInfo: VERSION }, {
          Authorization: `Bearer ${DEVICE_KEY}`,
        }),
      );
      const enrolled = await res.json();
      assert.equal(res.status, 201, JSON.stringify(enrolled));
      token = enrolled.token;
    }
    const bearer = { Authorization: `Bearer ${token}` };
    const ddi = { Authorization: mode === "token" ? `TargetToken ${token}` : `GatewayToken ${DEVICE_KEY}` };
    const good = json({ versionInfo: VERSION }, bearer);
    assert.equal((await apps.hono("/api/v1/device/known-1/checkin", good)).status, 200);
    assert.equal((await apps.hono("/DEFAULT/controller/v1/known-1", { headers: ddi })).status, 200);

    const calls: Call[] = [
      { name: "quiet check-in", path: "/api/v1/device/known-1/checkin", init: withLength(good), lean: true },
      { name: "check-in, length not declared", path: "/api/v1/device/known-1/checkin", init: good, lean: false },
      {
        name: "check-in, a client that takes gzip",
        path: "/api/v1/device/known-1/checkin",
        init: withLength({
          ...good,
          headers: { ...good.headers as Record<string, string>, "Accept-Encoding": "gzip" },
        }),
        lean: true,
      },
      { name: "quiet DDI poll", path: "/DEFAULT/controller/v1/known-1", init: { headers: ddi }, lean: true },
      {
        name: "DDI poll, tenant in other case",
        path: "/default/controller/v1/known-1",
        init: { headers: ddi },
        lean: true,
      },
      { name: "DDI poll with a query", path: "/DEFAULT/controller/v1/known-1?c=1", init: { headers: ddi }, lean: true },
      { name: "DDI HEAD", path: "/DEFAULT/controller/v1/known-1", init: { method: "HEAD", headers: ddi }, lean: false },
      { name: "DDI poll, other tenant", path: "/OTHER/controller/v1/known-1", init: { headers: ddi }, lean: false },
      { name: "DDI poll under /api/", path: "/api/controller/v1/known-1", init: { headers: ddi }, lean: false },
      {
        name: "DDI poll, trailing slash",
        path: "/DEFAULT/controller/v1/known-1/",
        init: { headers: ddi },
        lean: false,
      },
      { name: "DDI poll, escaped path", path: "/DEFAULT/controller/v1/known%2D1", init: { headers: ddi }, lean: false },
      {
        name: "DDI poll, NUL in the path",
        path: "/DEFAULT/controller/v1/known%00",
        init: { headers: ddi },
        lean: false,
      },
      { name: "DDI poll, malformed id", path: "/DEFAULT/controller/v1/-known", init: { headers: ddi }, lean: false },
      { name: "DDI poll, no credential", path: "/DEFAULT/controller/v1/known-1", init: {}, lean: false },
      {
        name: "DDI poll, wrong scheme",
        path: "/DEFAULT/controller/v1/known-1",
        init: { headers: { Authorization: `Bearer ${token}` } },
        lean: false,
      },
      {
        name: "check-in, no credential",
        path: "/api/v1/device/known-1/checkin",
        init: json({ versionInfo: VERSION }, {}),
        lean: false,
      },
      {
        name: "check-in, malformed deviceId",
        path: "/api/v1/device/-known/checkin",
        init: withLength(json({ versionInfo: VERSION }, bearer)),
        lean: false,
      },
      {
        name: "check-in, not JSON",
        path: "/api/v1/device/known-1/checkin",
        init: withLength({ ...good, headers: { ...bearer, "Content-Type": "text/plain" } }),
        lean: false,
      },
      {
        name: "check-in, broken JSON",
        path: "/api/v1/device/known-1/checkin",
        init: withLength(json("{", bearer)),
        lean: false,
      },
      {
        name: "check-in, body against the schema",
        path: "/api/v1/device/known-1/checkin",
        init: withLength(json({ versionInfo: { app: 1 } }, bearer)),
        lean: false,
      },
      {
        name: "check-in, a NUL in the body",
        path: "/api/v1/device/known-1/checkin",
        init: withLength(json({ versionInfo: { ...VERSION, app: "2\u0000" } }, bearer)),
        lean: false,
      },
      {
        name: "check-in, escaped path",
        path: "/api/v1/device/known%2D1/checkin",
        init: withLength(good),
        lean: false,
      },
      { name: "GET on the check-in", path: "/api/v1/device/known-1/checkin", init: { headers: bearer }, lean: false },
    ];
    for (const call of calls) await compare(apps, lines, call);

    // The console_http_* series is the route's pattern, whichever path answered.
    for (
      const [path, init, route, method] of [
        ["/api/v1/device/known-1/checkin", withLength(good), CHECKIN, "POST"],
        ["/DEFAULT/controller/v1/known-1", { headers: ddi }, POLL, "GET"],
      ] as const
    ) {
      for (const which of ["lean", "hono"] as const) {
        const before = await served(route, method, 200);
        assert.equal((await apps[which](path, init)).status, 200);
        assert.equal(await served(route, method, 200), before + 1, `${which} ${method} ${route}`);
      }
    }

    // A device checking in for the first time (shared: created) or unknown (token: refused); then a version change.
    const fresh = async (which: "lean" | "hono", id: string, version = VERSION) => {
      const res = await apps[which](`/api/v1/device/${id}/checkin`, withLength(json({ versionInfo: version }, bearer)));
      return { status: res.status, body: (await res.text()).replaceAll(id, "ID") };
    };
    assert.deepEqual(await fresh("lean", "new-lean"), await fresh("hono", "new-hono"));
    const changed = { ...VERSION, app: "2.5.0" };
    if (mode === "shared") {
      assert.deepEqual(await fresh("lean", "new-lean", changed), await fresh("hono", "new-hono", changed));
    }

    // Wrong credentials: refused and counted alike, up to the throttle's 429 (token mode: even the right token
    // of the pair; shared: wrong keys from the address).
    const wrong = mode === "token"
      ? { Authorization: "Bearer tdd_wrong" }
      : { Authorization: "Bearer wrong-key-0123456789" };
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      for (
        const [kind, path, init] of [
          ["check-in", "/api/v1/device/known-1/checkin", withLength(json({ versionInfo: VERSION }, wrong))],
          ["DDI poll", "/DEFAULT/controller/v1/known-1", {
            headers: { Authorization: mode === "token" ? "TargetToken tdd_wrong" : "GatewayToken wrong-key-0123" },
          }],
        ] as const
      ) {
        const answer = await compare(apps, lines, {
          name: `wrong credential, ${kind} ${i + 1}`,
          path,
          init,
          lean: false,
        });
        statuses.push(answer.status);
      }
    }
    // The refusals above counted too (each path its own throttle, driven alike): by now the throttle answers.
    assert.equal(statuses[0], 401, statuses.join(" "));
    assert.equal(statuses.at(-1), 429, statuses.join(" "));
    const right = await compare(apps, lines, {
      name: "the right credential of a throttled pair",
      path: "/api/v1/device/known-1/checkin",
      init: withLength(good),
      lean: mode === "shared",
    });
    assert.equal(right.status, mode === "token" ? 429 : 200);
  });
}

Deno.test("lean routes: a store's failure is answered as app.onError answers it", async () => {
  const logged: string[] = [];
  let failure: Error = new StoreUnavailableError("The database cannot be reached.");
  await using built = await testApp((ctx) => ({
    ...ctx,
    log: (line) => logged.push(line),
    stores: {
      ...ctx.stores,
      deviceApi: {
        ...ctx.stores.deviceApi,
        checkin: () => Promise.reject(failure),
        ddiPoll: () => Promise.reject(failure),
      },
      devices: { ...ctx.stores.devices, view: () => Promise.reject(failure) },
    },
  }));
  const hono = createApp(built.ctx, { lean: false });
  const apps = {
    lean: (path: string, init: RequestInit) => Promise.resolve(built.app.request(path, init)),
    hono: (path: string, init: RequestInit) => Promise.resolve(hono.request(path, init)),
  };
  const lines: RequestLine[] = [];
  const session = { headers: { Authorization: `Bearer ${await built.login()}` } };
  // Its first use verifies the session (Hono's path).
  await compare(apps, lines, { name: "GET devices, first use", path: "/api/v1/devices", init: session, lean: false });
  for (const [error, status] of [[new StoreUnavailableError("down"), 503], [new Error("a bug"), 500]] as const) {
    failure = error;
    const page = await compare(apps, lines, {
      name: `GET devices, ${error.message}`,
      path: "/api/v1/devices?rowsPerPage=7",
      init: session,
      lean: true,
    });
    assert.equal(page.status, status);
    const checkin = await compare(apps, lines, {
      name: `check-in, ${error.message}`,
      path: "/api/v1/device/known-1/checkin",
      init: withLength(json({ versionInfo: VERSION }, { Authorization: `Bearer ${DEVICE_KEY}` })),
      lean: true,
    });
    const poll = await compare(apps, lines, {
      name: `DDI poll, ${error.message}`,
      path: "/DEFAULT/controller/v1/known-1",
      init: { headers: { Authorization: `GatewayToken ${DEVICE_KEY}` } },
      lean: true,
    });
    assert.deepEqual([checkin.status, poll.status], [status, status]);
  }
  // The bug is logged with its stack, once per answer, by either path.
  assert.equal(logged.filter((l) => l.startsWith("ERROR POST /api/v1/device/known-1/checkin: Error: a bug")).length, 2);
  assert.equal(logged.filter((l) => l.startsWith("ERROR GET /api/v1/devices: Error: a bug")).length, 2);
});

Deno.test("lean routes: a check-in answer of 1 KB or more is gzipped for a client that takes it, as Hono's is", async () => {
  await using built = await testApp();
  const api = await built.api();
  const dir = await Deno.makeTempDir({ prefix: "lean-gzip-" });
  const phases = [{
    duration: 600,
    channels: [{
      current: 20,
      frequency: 80,
      polarity: "biphasic symmetric",
      riseTime: 500,
      holdTime: 5000,
      fallTime: 500,
    }],
  }];
  makeImportDb(
    `${dir}/t.sqlite3`,
    ["T1 back", "T2 knee", "T3 calf", "T4 neck"].map((name) => ({ name, category: "Pain relief", phases })),
  );
  await api.importTreatments(await fileSource(`${dir}/t.sqlite3`));
  await Deno.remove(dir, { recursive: true });
  const pt = await api.createProductType("Gzip type");
  const treatmentIds = (await api.listTreatments()).map((t) => t._id);
  await api.patchProductType({
    _id: pt._id,
    name: pt.name,
    modules: [{ name: "Base", isDefault: true, treatmentIds }],
  });
  const hono = createApp(built.ctx, { lean: false });
  const checkin = withLength(
    json({ versionInfo: VERSION }, { Authorization: `Bearer ${DEVICE_KEY}`, "Accept-Encoding": "gzip" }),
  );
  assert.equal((await hono.request("/api/v1/device/big-1/checkin", checkin)).status, 200);
  await api.patchDevice({ deviceId: "big-1", productTypeId: pt._id });

  const answers = [];
  for (const app of [built.app, hono]) {
    const before = leanAnswers();
    const res = await app.request("/api/v1/device/big-1/checkin", {
      ...checkin,
      headers: { ...checkin.headers as Record<string, string>, "X-Request-Id": "gzip-1" },
    });
    const gzipped = new Uint8Array(await res.arrayBuffer());
    const text = await new Response(new Blob([gzipped]).stream().pipeThrough(new DecompressionStream("gzip"))).text();
    answers.push({ status: res.status, headers: [...res.headers].sort(), text, lean: leanAnswers() - before });
  }
  assert.ok(answers[0].text.length >= 1024, `${answers[0].text.length} bytes`);
  assert.equal(answers[0].headers.find(([k]) => k === "content-encoding")?.[1], "gzip");
  assert.deepEqual(answers.map((a) => a.lean), [1, 0]);
  assert.deepEqual({ ...answers[0], lean: 0 }, { ...answers[1], lean: 0 });
});

Deno.test("lean routes: GET devices answers as Hono's, for every role, token and query", async () => {
  const lines: RequestLine[] = [];
  // TRUST_PROXY: each refused API token below comes from its own address, so the throttle of bad tokens (shared by
  // both apps: one database) counts no case past its free attempts.
  await using built = await testApp((ctx) => ({
    ...ctx,
    config: { ...ctx.config, DEVICE_AUTH: "shared", trustProxy: true },
    logRequest: (line) => lines.push(line),
  }));
  const hono = createApp(built.ctx, { lean: false });
  const apps = {
    lean: (path: string, init: RequestInit) => Promise.resolve(built.app.request(path, init)),
    hono: (path: string, init: RequestInit) => Promise.resolve(hono.request(path, init)),
  };
  const admin = await built.api();
  for (let i = 1; i <= 12; i++) {
    const version = { app: i % 2 ? "2.4.1" : "3.0.0", os: i % 3 ? "5.10.0" : "6.1.0", channels: ["1.2"] };
    const res = await apps.hono(
      `/api/v1/device/dev-${String(i).padStart(2, "0")}/checkin`,
      json({ versionInfo: version }, { Authorization: `Bearer ${DEVICE_KEY}` }),
    );
    assert.equal(res.status, 200);
  }
  const pt = await admin.createProductType("Lean type");
  await admin.patchDevice({ deviceId: "dev-03", productTypeId: pt._id });

  // Sessions (operator tokens) and API tokens of every role.
  const sessions: Record<string, string> = { admin: admin.token };
  const accounts: Record<string, string> = {};
  for (const role of ["operator", "viewer"] as const) {
    const email = `${role}@example.com`;
    const password = `${role}-password-1`;
    accounts[role] = (await admin.createOperator({ email, role, password }))._id;
    const res = await apps.hono("/api/v1/login", json({ email, password }, {}));
    assert.equal(res.status, 200);
    sessions[role] = (await res.json()).token;
  }
  const newToken = async (session: string, name: string, scopes: string[], expiresAt?: string) => {
    const res = await apps.hono(
      "/api/v1/api_tokens",
      json({ name, scopes, expiresAt }, { Authorization: `Bearer ${session}` }),
    );
    const created = await res.json();
    assert.equal(res.status, 201, JSON.stringify(created));
    return created as { _id: string; token: string };
  };
  const tokenExpiry = Date.now() + 3000;
  const tokens = {
    adminRead: await newToken(admin.token, "admin read", ["read"]),
    adminWrite: await newToken(admin.token, "admin devices write", ["devices:write"]),
    operatorRead: await newToken(sessions.operator, "operator read", ["read", "firmware:write"]),
    viewerRead: await newToken(sessions.viewer, "viewer read", ["read"]),
    revoked: await newToken(admin.token, "revoked", ["read"]),
    expiring: await newToken(admin.token, "expiring", ["read"], new Date(tokenExpiry).toISOString()),
    ofDisabled: await newToken(sessions.viewer, "of a disabled owner", ["read"]),
  };
  const auth = (credential: string, more: Record<string, string> = {}): RequestInit => ({
    headers: { Authorization: `Bearer ${credential}`, ...more },
  });
  // A session that expires soon, used (so verified: one the lean guard knows) while valid.
  const pwv = (await built.stores.operators.currentWithDevicesVersion(ADMIN.email)).operator!.passwordVersion;
  const shortSession = await issueToken(built.ctx.secret, ADMIN.email, pwv, 3);
  const shortExpiry = (Math.floor(Date.now() / 1000) + 3) * 1000;
  // The first use of a session verifies its signature (the others signed in and made tokens above), of an API token
  // writes its lastUsedAt: both Hono's.
  for (const credential of [shortSession, ...Object.values(tokens).map((t) => t.token)]) {
    const first = await compare(apps, lines, {
      name: "first use",
      path: "/api/v1/devices",
      init: auth(credential),
      lean: false,
    });
    assert.equal(first.status, 200, first.body);
  }
  const list = "/api/v1/devices";
  const calls: Call[] = [];
  for (const [role, session] of Object.entries(sessions)) {
    calls.push({ name: `session of ${role}`, path: list, init: auth(session), lean: true });
  }
  for (const [name, { token }] of Object.entries(tokens).slice(0, 4)) {
    calls.push({ name: `API token ${name}`, path: list, init: auth(token), lean: true });
  }
  const admin1 = auth(admin.token);
  const queries: [string, boolean][] = [
    ["page=0&rowsPerPage=5", true],
    ["page=1&rowsPerPage=5", true],
    ["page=99", true],
    ["rowsPerPage=100", true],
    ["sort=lastLoggedIn&order=desc", true],
    ["sort=productType", true],
    ["sort=app&order=asc", true],
    ["sort=updatedAt", true],
    ["sort=createdAt&order=desc", true],
    ["q=dev-0", true],
    ["q=+dev+", true],
    ["q=", true],
    ["q", true],
    [`productTypeId=${pt._id}`, true],
    ["firmware=custom", true],
    ["firmware=default", true],
    ["app=2.4.1&os=6.1.0", true],
    ["seen=24h", true],
    ["seen=never", true],
    ["admission=accepted", true],
    ["admission=pending", true],
    ["update=none", true],
    ["update=failed", true],
    ["page=1&page=0&rowsPerPage=3", true],
    ["unknown=1", true],
    ["page=-1", false],
    ["page=x", false],
    ["rowsPerPage=0", false],
    ["rowsPerPage=101", false],
    ["sort=bogus", false],
    ["order=up", false],
    ["seen=later", false],
    ["admission=maybe", false],
    ["productTypeId=unknown-id", true],
    [`productTypeId=${"x".repeat(129)}`, false],
    ["app=", false],
    ["q=dev%2D0", false],
    ["q=%00", false],
    ["q=%FF", false],
  ];
  // Each twice: the second is answered with the parse the lean route kept.
  for (const [query, lean] of [...queries, ...queries]) {
    calls.push({ name: `?${query.slice(0, 40)}`, path: `${list}?${query}`, init: admin1, lean });
  }
  calls.push(
    {
      name: "a client that takes gzip",
      path: list,
      init: auth(admin.token, { "Accept-Encoding": "gzip, br" }),
      lean: true,
    },
    {
      name: "gzip, a small page",
      path: `${list}?rowsPerPage=1`,
      init: auth(admin.token, { "Accept-Encoding": "gzip" }),
      lean: true,
    },
    { name: "gzip refused", path: list, init: auth(admin.token, { "Accept-Encoding": "gzip;q=0" }), lean: true },
    { name: "If-None-Match", path: list, init: auth(admin.token, { "If-None-Match": '"1"' }), lean: true },
    { name: "HEAD", path: list, init: { ...admin1, method: "HEAD" }, lean: false },
    { name: "trailing slash", path: `${list}/`, init: admin1, lean: false },
    { name: "upper case", path: "/api/v1/Devices", init: admin1, lean: false },
    { name: "no credential", path: list, init: {}, lean: false },
    { name: "Basic scheme", path: list, init: { headers: { Authorization: "Basic YTpi" } }, lean: false },
    { name: "forged session", path: list, init: auth(`${admin.token.slice(0, -2)}xx`), lean: false },
    {
      name: "a session never seen",
      path: list,
      init: auth(await issueToken(built.ctx.secret, ADMIN.email, pwv, 60)),
      lean: false,
    },
    {
      name: "a session of nobody",
      path: list,
      init: auth(await issueToken(built.ctx.secret, "nobody@example.com", pwv, 60)),
      lean: false,
    },
    {
      name: "malformed API token",
      path: list,
      init: auth("tdc_short", { "X-Forwarded-For": "10.0.0.1" }),
      lean: false,
    },
    {
      name: "unknown API token",
      path: list,
      init: auth(`tdc_${"A".repeat(43)}`, { "X-Forwarded-For": "10.0.0.2" }),
      lean: false,
    },
  );
  for (const call of calls) {
    const answer = await compare(apps, lines, call);
    if (call.name === "a client that takes gzip") {
      assert.ok(answer.headers.some(([k, v]) => k === "content-encoding" && v === "gzip"), "the page is gzipped");
    }
  }

  // Refused since their first use: a revoked token, a disabled owner's, an expired token and session, a session
  // after a password change, after its operator is disabled.
  assert.equal(
    (await apps.hono(`/api/v1/api_tokens/${tokens.revoked._id}`, { method: "DELETE", ...admin1 })).status,
    204,
  );
  await admin.patchOperator(accounts.viewer, { disabled: true });
  await admin.resetOperatorPassword(accounts.operator, "operator-password-2");
  const expired = Math.max(shortExpiry, tokenExpiry) + 100;
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, expired - Date.now())));
  const refused: Call[] = [
    {
      name: "revoked API token",
      path: list,
      init: auth(tokens.revoked.token, { "X-Forwarded-For": "10.0.0.3" }),
      lean: false,
    },
    {
      name: "expired API token",
      path: list,
      init: auth(tokens.expiring.token, { "X-Forwarded-For": "10.0.0.4" }),
      lean: false,
    },
    {
      name: "API token of a disabled owner",
      path: list,
      init: auth(tokens.ofDisabled.token, { "X-Forwarded-For": "10.0.0.5" }),
      lean: false,
    },
    {
      name: "a viewer's token, owner disabled",
      path: list,
      init: auth(tokens.viewerRead.token, { "X-Forwarded-For": "10.0.0.6" }),
      lean: false,
    },
    { name: "expired session", path: list, init: auth(shortSession), lean: false },
    { name: "session after a password change", path: list, init: auth(sessions.operator), lean: false },
    { name: "session of a disabled operator", path: list, init: auth(sessions.viewer), lean: false },
    {
      name: "the operator's token after the password change",
      path: list,
      init: auth(tokens.operatorRead.token),
      lean: true,
    },
  ];
  for (const call of refused) {
    const answer = await compare(apps, lines, call);
    assert.equal(answer.status, call.lean ? 200 : 401, `${call.name}: ${answer.body}`);
  }

  // A token last used over a minute ago: Hono's guard writes its lastUsedAt (the lean guard passes it on), then lean.
  const stale = new Date(Date.now() - 120_000).toISOString();
  await built.stores.apiTokens.touch(tokens.adminRead._id, stale, new Date(Date.now() + 60_000).toISOString());
  await compare(apps, lines, { name: "stale lastUsedAt", path: list, init: auth(tokens.adminRead.token), lean: false });
  const used = (await admin.listApiTokens()).find((t) => t._id === tokens.adminRead._id)!;
  assert.ok(Date.parse(used.lastUsedAt!) > Date.parse(stale) + 60_000, used.lastUsedAt!);
  await compare(apps, lines, {
    name: "lastUsedAt written",
    path: list,
    init: auth(tokens.adminRead.token),
    lean: true,
  });

  // The same console_http_* series, whichever path answered.
  for (const which of ["lean", "hono"] as const) {
    const before = await served(list, "GET", 200);
    assert.equal((await apps[which](list, admin1)).status, 200);
    assert.equal(await served(list, "GET", 200), before + 1, which);
  }
});

Deno.test("lean routes: a credential answered many times is refused at the very next request after its change", async () => {
  await using built = await testApp((ctx) => ({
    ...ctx,
    config: { ...ctx.config, DEVICE_AUTH: "shared", trustProxy: true },
  }));
  const hono = createApp(built.ctx, { lean: false });
  const admin = await built.api();
  const list = "/api/v1/devices";
  let address = 0;
  /** The status of one request to each app, and whether the lean path answered the first. */
  const both = async (credential: string, path = list, init: RequestInit = {}) => {
    const statuses = [];
    let lean = 0;
    for (const app of [built.app, hono]) {
      const before = leanAnswers();
      const res = await app.request(path, {
        ...init,
        // Each request from an address of its own: the bad-token throttle never answers 429 here.
        headers: {
          Authorization: `Bearer ${credential}`,
          "X-Forwarded-For": `10.1.${address >> 8 & 255}.${address++ & 255}`,
        },
      });
      await res.body?.cancel();
      if (app === built.app) lean = leanAnswers() - before;
      statuses.push(res.status);
    }
    return { statuses, lean };
  };
  const login = async (email: string, password: string) => {
    const res = await hono.request("/api/v1/login", json({ email, password }, {}));
    assert.equal(res.status, 200);
    return (await res.json()).token as string;
  };
  const newToken = async (session: string, name: string, scopes: string[]) => {
    const res = await hono.request(
      "/api/v1/api_tokens",
      json({ name, scopes }, { Authorization: `Bearer ${session}` }),
    );
    assert.equal(res.status, 201);
    return (await res.json()) as { _id: string; token: string };
  };
  const pt = await admin.createProductType("Kept type");
  await admin.preauthorizeDevice("kept-1");
  const people = ["password", "disabled", "demoted", "revoked", "elsewhere"];
  const ids: Record<string, string> = {};
  const sessions: Record<string, string> = {};
  const tokens: Record<string, { _id: string; token: string }> = {};
  for (const who of people) {
    const email = `${who}@example.com`;
    ids[who] = (await admin.createOperator({ email, role: "operator", password: `${who}-password-1` }))._id;
    sessions[who] = await login(email, `${who}-password-1`);
    tokens[who] = await newToken(sessions[who], who, ["read", "devices:write"]);
  }
  const patch = { method: "PATCH", body: JSON.stringify({ deviceId: "kept-1", productTypeId: pt._id }) };
  const patchInit = { ...patch, headers: { "Content-Type": "application/json" } };
  // Answered many times by both paths (GET devices lean after each credential's first use), and a write by the token.
  for (const who of people) {
    for (let i = 0; i < 10; i++) {
      for (const credential of [sessions[who], tokens[who].token]) {
        const { statuses, lean } = await both(credential);
        assert.deepEqual(statuses, [200, 200], who);
        if (i > 0) assert.equal(lean, 1, `${who}: lean`);
      }
    }
    const res = await built.app.request("/api/v1/devices/kept-1", {
      ...patchInit,
      headers: { ...patchInit.headers, Authorization: `Bearer ${tokens[who].token}` },
    });
    assert.equal(res.status, 200, `${who}: ${await res.text()}`);
  }

  await admin.resetOperatorPassword(ids.password, "password-password-2");
  assert.deepEqual((await both(sessions.password)).statuses, [401, 401], "session after a password change");
  assert.deepEqual((await both(tokens.password.token)).statuses, [200, 200], "the token stays");

  await admin.patchOperator(ids.disabled, { disabled: true });
  assert.deepEqual((await both(sessions.disabled)).statuses, [401, 401], "session of a disabled operator");
  assert.deepEqual((await both(tokens.disabled.token)).statuses, [401, 401], "token of a disabled owner");

  // Demoted to viewer: the token's write is refused at once; it may still read.
  await admin.patchOperator(ids.demoted, { role: "viewer" });
  const write = async (token: string) => {
    const res = await both(token, "/api/v1/devices/kept-1", patchInit);
    return res.statuses;
  };
  assert.deepEqual(await write(tokens.demoted.token), [403, 403], "a demoted owner's token writing");
  assert.deepEqual((await both(tokens.demoted.token)).statuses, [200, 200], "a demoted owner's token reading");
  assert.deepEqual((await both(sessions.demoted)).statuses, [401, 401], "a demoted operator's session");

  await admin.revokeApiToken(tokens.revoked._id);
  assert.deepEqual((await both(tokens.revoked.token)).statuses, [401, 401], "revoked token");

  // A change made through another connection (SQLite) or pool (PostgreSQL) to the same database.
  const other = await built.another();
  await other.operators.setPassword("elsewhere@example.com", "x".repeat(60));
  assert.deepEqual((await both(sessions.elsewhere)).statuses, [401, 401], "session after a change elsewhere");
  await other.apiTokens.revoke(tokens.elsewhere._id, { operatorId: ids.elsewhere, admin: false });
  assert.deepEqual((await both(tokens.elsewhere.token)).statuses, [401, 401], "token revoked elsewhere");

  // The page follows every write to the devices, whoever makes it: the list asked lean after each.
  const page = async () => {
    const before = leanAnswers();
    const res = await built.app.request(`${list}?rowsPerPage=100`, {
      headers: { Authorization: `Bearer ${admin.token}` },
    });
    assert.equal(res.status, 200);
    assert.equal(leanAnswers() - before, 1);
    return (await res.json()) as { total: number; data: { deviceId: string; lastLoggedIn: string | null }[] };
  };
  const seen = async (id: string) => (await page()).data.find((d) => d.deviceId === id)?.lastLoggedIn ?? null;
  await page();
  await page();
  const device = built.device("kept-2");
  await device.checkin({ versionInfo: VERSION });
  const first = await seen("kept-2");
  assert.ok(first !== null, "a new device is listed at once");
  await new Promise((r) => setTimeout(r, 5));
  await device.checkin({ versionInfo: VERSION }); // changes nothing but its time, which waits for the last-seen flush
  await built.stores.deviceApi.flushSeen();
  const flushed = await seen("kept-2");
  assert.ok(flushed !== null && flushed > first, `the last-seen flush is listed: ${first} → ${flushed}`);
  const total = (await page()).total;
  assert.deepEqual((await admin.preauthorizeDevices(["kept-3", "kept-4"])).created, ["kept-3", "kept-4"]);
  assert.equal((await page()).total, total + 2, "a bulk preauthorization is listed");
  await other.devices.preauthorizeMany(["kept-5"]);
  assert.equal((await page()).total, total + 3, "a device added elsewhere is listed");
});
