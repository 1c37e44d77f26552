/**
 * The contract audit's shared setup: a real server over HTTP, seeded with a product type with modules, imported
 * treatments with images, two firmwares and checked-in devices; the request plumbing; the findings collector (each
 * step gathers all its findings and fails once with the whole list, so one run names every broken case); and state
 * snapshots to prove a refused request changed nothing. Each audit file starts its own seeded server.
 */
import assert from "node:assert/strict";
import { type ApiClient, DeviceClient } from "../../shared/client.ts";
import { API_PREFIX, fillPath, type Route, routeList, type RouteName, routes } from "../../shared/routes/mod.ts";
import { generateTreatments, makeImportDb } from "../../testing/import_db.ts";
import { fileSource, makeXzFile } from "../../testing/files.ts";
import { DEVICE_API_KEY, listFiles, startServer, type TestServer } from "../../testing/server.ts";
import { assertErrorBody, type Json } from "../helpers/hostile.ts";
import { xzBytes as xzStream } from "../../testing/xz_fixtures.ts";
import { freshPublicKeyPem } from "../../testing/release_keys.ts";

export const JWT_SECRET = "audit-jwt-secret-0123456789-abcdefghijkl";
export const MAX_FIRMWARE_BYTES = 1 << 20;

// ---------------------------------------------------------------- plumbing

export interface Res {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

export interface SendOptions {
  /** The raw Authorization header; `token` sets a Bearer one. */
  auth?: string;
  token?: string;
  json?: unknown;
  body?: BodyInit;
  contentType?: string;
  headers?: Record<string, string>;
}

export async function send(srv: TestServer, method: string, path: string, o: SendOptions = {}): Promise<Res> {
  const headers = new Headers(o.headers);
  if (o.token) headers.set("authorization", `Bearer ${o.token}`);
  if (o.auth !== undefined) headers.set("authorization", o.auth);
  let body = o.body;
  if (o.json !== undefined) {
    body = JSON.stringify(o.json);
    headers.set("content-type", "application/json");
  }
  if (o.contentType !== undefined) headers.set("content-type", o.contentType);
  const res = await fetch(`${srv.url}${path}`, { method, headers, body });
  const text = await res.text();
  let json: unknown = undefined;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch { /* not JSON */ }
  return { status: res.status, headers: res.headers, text, json };
}

/** Findings of one step: every case runs, every failure is kept, the step fails once with the whole list. */
export class Findings {
  list: string[] = [];
  check(label: string, fn: () => void) {
    try {
      fn();
    } catch (err) {
      this.list.push(`${label}: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`);
    }
  }
  add(label: string, msg: string) {
    this.list.push(`${label}: ${msg}`);
  }
  done() {
    assert.deepEqual(this.list, [], `${this.list.length} finding(s):\n  ${this.list.join("\n  ")}`);
  }
}

export const describe = (r: Res) => `${r.status} ${r.text.slice(0, 300)}`;

/**
 * Checks a refusal: one of `statuses`, an {error, msg} error body, and (when given) a msg that names `field`.
 * Returns the error body, or null when the check failed.
 */
export function refused(
  f: Findings,
  label: string,
  r: Res,
  statuses: readonly number[],
  opts: { field?: string; code?: string } = {},
): { error: string; msg: string } | null {
  let body: { error: string; msg: string } | null = null;
  f.check(label, () => {
    assert.ok(statuses.includes(r.status), `expected ${statuses.join("/")}, got ${describe(r)}`);
    assert.match(r.headers.get("content-type") ?? "", /^application\/json/, "error is not JSON");
    body = assertErrorBody(r.status, r.json, "error body");
    if (opts.code) assert.equal(body.error, opts.code, `error code (${describe(r)})`);
    if (opts.field) {
      assert.ok(body.msg.includes(opts.field), `msg does not name the field '${opts.field}': ${body.msg}`);
    }
  });
  return body;
}

/** Never a 500; any 4xx/5xx carries an {error, msg} error body. */
export function sane(f: Findings, label: string, r: Res) {
  f.check(label, () => {
    assert.ok(r.status < 500, `server error ${describe(r)}`);
    if (r.status >= 400) assertErrorBody(r.status, r.json, "error body");
  });
}

// ---------------------------------------------------------------- seed

export interface Seed {
  srv: TestServer;
  api: ApiClient;
  token: string;
  tmp: string;
  treatmentIds: string[];
  imageId: string;
  ptId: string;
  pt2Id: string;
  baseModuleId: string;
  extraModuleId: string;
  fwA: { _id: string; name: string };
  fwB: { _id: string; name: string };
  dtId: string;
  devices: string[];
  /** A viewer account the operator routes' samples change (never the admin the audit signs in as). */
  viewerId: string;
  /** A draft rollout of fwB to every device (the action routes' probes would start or cancel it). */
  rolloutId: string;
  /** An API token of the admin's, for the samples of the token routes. */
  apiTokenId: string;
  /** A saved view of the admin's, for the samples of the saved-view routes. */
  savedViewId: string;
  /** A registered release key, for the samples of the release-key routes. */
  releaseKeyId: string;
}

async function seed(srv: TestServer): Promise<Seed> {
  const api = await srv.login();
  const tmp = await Deno.makeTempDir({ prefix: "contract-audit-" });

  const importPath = `${tmp}/seed.sqlite3`;
  makeImportDb(importPath, generateTreatments(6, { phases: 2, channels: 2, images: 1, namePrefix: "Audit" }));
  await api.importTreatments(await fileSource(importPath));
  const treatments = await api.listTreatments();
  assert.equal(treatments.length, 6);
  const imageId = treatments.find((t) => t.images.length > 0)!.images[0];
  const treatmentIds = treatments.map((t) => t._id);

  const pt = await api.createProductType("Audit type");
  const patched = await api.patchProductType({
    _id: pt._id,
    name: pt.name,
    theme: { primary: "#078686" },
    modules: [
      { name: "Base", isDefault: true, treatmentIds: [treatmentIds[0]] },
      { name: "Extra", isDefault: false, treatmentIds: [treatmentIds[1], treatmentIds[2]] },
    ],
  });
  const pt2 = await api.createProductType("Other type");
  await api.patchProductType({
    _id: pt2._id,
    name: pt2.name,
    modules: [{ name: "Other module", isDefault: false, treatmentIds: [] }],
  });

  const fwA = await api.uploadFirmware(await fileSource(await makeXzFile(tmp, "fw-a.xz")));
  const fwB = await api.uploadFirmware(await fileSource(await makeXzFile(tmp, "fw-b.xz")));
  const [dt] = await api.listDeviceTypes();
  await api.patchDeviceType({ _id: dt._id, defaultFirmware: fwB._id });

  const devices = ["dev-001", "dev-002", "dev-003", "dev-004", "dev-005"];
  for (const id of devices) {
    await new DeviceClient(id, { baseUrl: srv.url, apiKey: DEVICE_API_KEY }).checkin({
      versionInfo: { app: "1.0.0", os: "linux", channels: ["a", "b"] },
    });
  }
  const viewer = await api.call(routes.createOperator, {
    body: { email: "audit-viewer@example.com", role: "viewer", password: "audit-viewer-1" },
  });
  const apiToken = await api.call(routes.createApiToken, { body: { name: "Audit token", scopes: ["read"] } });
  const savedView = await api.call(routes.createSavedView, {
    body: { name: "Audit view", query: { update: "failed", sort: "app" }, shared: true },
  });
  const releaseKey = await api.call(routes.createReleaseKey, {
    body: { name: "Audit key", publicKey: freshPublicKeyPem() },
  });
  const extra = patched.modules.find((m) => m.name === "Extra")!;
  await api.patchDevice({
    deviceId: "dev-001",
    productTypeId: pt._id,
    moduleIds: [extra._id],
    firmware: fwA._id,
    additionalTreatmentIds: [treatmentIds[3]],
  });

  const rollout = await api.call(routes.createRollout, {
    body: { name: "Audit draft", firmwareId: fwB._id, productTypeId: null },
  });

  return {
    srv,
    api,
    token: api.token,
    rolloutId: rollout._id,
    tmp,
    treatmentIds,
    imageId,
    ptId: pt._id,
    pt2Id: pt2._id,
    baseModuleId: patched.modules.find((m) => m.name === "Base")!._id,
    extraModuleId: extra._id,
    fwA,
    fwB,
    dtId: dt._id,
    devices,
    viewerId: viewer._id,
    apiTokenId: apiToken._id,
    savedViewId: savedView._id,
    releaseKeyId: releaseKey._id,
  };
}

// ---------------------------------------------------------------- state snapshots

export interface Snapshot {
  lists: Record<string, unknown>;
  files: string[];
  tmp: string[];
}

/** A list route's query for a snapshot: the widest page. */
const SNAPSHOT_QUERY: Partial<Record<RouteName, string>> = {
  listDevices: "page=0&rowsPerPage=100",
  listAudit: "page=0&rowsPerPage=100",
};

/** Every operator list (a GET without path parameters answering JSON), e.g. /api/v1/devices?page=0&rowsPerPage=100. */
export const LISTS: string[] = routeList
  .filter((r) => r.method === "GET" && r.auth === "operator" && !r.params && r.answers[200]?.kind === "json")
  .map((r) => {
    const query = SNAPSHOT_QUERY[r.name as RouteName];
    return `${API_PREFIX}${r.path}${query ? `?${query}` : ""}`;
  });

export async function snapshot(s: Seed): Promise<Snapshot> {
  const lists: Record<string, unknown> = {};
  for (const path of LISTS) {
    const r = await send(s.srv, "GET", path, { token: s.token });
    assert.equal(r.status, 200, `snapshot ${path}: ${describe(r)}`);
    lists[path] = r.json;
  }
  // The WAL's side files come and go with checkpoints: compare what matters.
  const files = (await listFiles(s.srv.dataDir)).filter((p) => !/-(wal|shm|journal)$/.test(p) && !p.startsWith("tmp/"));
  return { lists, files, tmp: await listFiles(`${s.srv.dataDir}/tmp`) };
}

const AUDIT_LIST = `${API_PREFIX}/audit?page=0&rowsPerPage=100`;

/**
 * The audit page as a refused request may leave it: a failed sign-in is a security event the trail records (docs/REQUIREMENTS.md
 * §12), so on the sign-in route `auth.sign_in_failed` entries may be added; any other entry may not.
 */
function auditWithoutFailedSignIns(page: unknown): { action: string }[] {
  const p = page as { data: { action: string }[] };
  return p.data.filter((e) => e.action !== "auth.sign_in_failed");
}

/** Compares two snapshots; a refused request must leave lists and files as they were, and tmp empty. */
export function unchanged(f: Findings, label: string, before: Snapshot, after: Snapshot) {
  f.check(label, () => {
    for (const path of LISTS) {
      if (path === AUDIT_LIST && label.startsWith("POST login")) {
        // New entries come first (newest first), so they push older ones off the page: without the failed sign-ins,
        // the page after is the start of the page before.
        const afterRest = auditWithoutFailedSignIns(after.lists[path]);
        assert.deepEqual(
          afterRest,
          auditWithoutFailedSignIns(before.lists[path]).slice(0, afterRest.length),
          `the trail gained an entry other than a failed sign-in after a refused sign-in`,
        );
        continue;
      }
      assert.deepEqual(after.lists[path], before.lists[path], `state changed after a refused request: GET ${path}`);
    }
    assert.deepEqual(after.files, before.files, "files in DATA_DIR changed after a refused request");
    assert.deepEqual(after.tmp, [], "DATA_DIR/tmp is not empty after a refused request");
  });
}

/** A recorder for a run of requests: after each refused one, the state must be the same as after the one before. */
export async function stateTracker(f: Findings, s: Seed) {
  let last = await snapshot(s);
  return async (label: string, r: Res) => {
    const now = await snapshot(s);
    if (r.status >= 400) unchanged(f, label, last, now);
    last = now;
  };
}

// ---------------------------------------------------------------- the seeded server

export interface Audit extends Seed, AsyncDisposable {}

/** Starts the real server (1 MiB firmware limit, a fixed JWT secret, no device-key throttle, and `env`) and seeds it. */
export async function startAudit(env: Record<string, string> = {}): Promise<Audit> {
  const srv = await startServer({
    env: {
      JWT_SECRET,
      MAX_FIRMWARE_BYTES: String(MAX_FIRMWARE_BYTES),
      LOG_LEVEL: "info",
      // Every wrong device key must be a 401 here, however many the suite sends from its one address; the 429 past
      // the limit is tests/device/device_throttle.test.ts's.
      DEVICE_AUTH_MAX_FAILURES: "100000",
      ...env,
    },
  });
  let s: Seed;
  try {
    s = await seed(srv);
  } catch (err) {
    await srv[Symbol.asyncDispose]();
    throw err;
  }
  return {
    ...s,
    async [Symbol.asyncDispose]() {
      await Deno.remove(s.tmp, { recursive: true }).catch(() => {});
      await srv[Symbol.asyncDispose]();
    },
  };
}

/** The last step of each audit file: whatever the requests, the server logged no internal error. */
export function assertNoInternalErrors(srv: TestServer) {
  const errors = srv.output().split("\n").filter((l) => /^ERROR |\bERROR\b.*Error:|^\{.*"level":"error"/.test(l));
  assert.deepEqual(errors.map((l) => l.slice(0, 300)), []);
}

// ---------------------------------------------------------------- requests from the route table

/** A route's URL path with its parameters filled in (URI-encoded). */
export const pathOf = (route: Route, params?: Record<string, string>) => `${API_PREFIX}${fillPath(route.path, params)}`;

/** A route's URL path with every parameter replaced by `raw` exactly as given (hostile, pre-encoded text). */
export const rawPath = (route: Route, raw: string) => `${API_PREFIX}${route.path.replace(/:[A-Za-z_]+/g, () => raw)}`;

/** The Authorization a route's auth kind takes. */
export function authFor(s: Seed, route: { auth: string }): SendOptions {
  if (route.auth === "operator") return { token: s.token };
  if (route.auth === "device") return { token: DEVICE_API_KEY };
  return {};
}

/** A valid xz file holding `text`: what the server takes for a firmware. */
export function xzBytes(text: string) {
  return xzStream(text);
}

/** Sends raw text (or a stream) with a content type to a route, with the auth its kind takes. */
export function sendText(
  s: Seed,
  route: { method: string; path: string; auth: string },
  text: string | BodyInit,
  contentType?: string,
) {
  return send(s.srv, route.method, route.path, { ...authFor(s, route), body: text, contentType });
}

/** [what, method, path, JSON body (null: none), the status, the field its msg must name]. */
export type RuleCase = [string, string, string, Json | null, number, string?];

/** Each case, sent with the operator token: refused with its status and field, the state unchanged. */
export async function checkRuleCases(s: Seed, f: Findings, cases: RuleCase[]) {
  for (const [what, method, path, body, status, field] of cases) {
    const before = await snapshot(s);
    const r = await send(s.srv, method, path, { token: s.token, ...(body === null ? {} : { json: body }) });
    refused(f, `${method} ${path} [${what}]`, r, [status], { field });
    unchanged(f, `${method} ${path} [${what}]`, before, await snapshot(s));
  }
}

/** The _id of the module of the second product type (a module foreign to the first). */
export async function foreignModuleId(s: Seed): Promise<string> {
  const pt2 = (await send(s.srv, "GET", `/api/v1/product_types/${s.pt2Id}`, { token: s.token })).json as {
    modules: { _id: string }[];
  };
  return pt2.modules[0]._id;
}
