/**
 * A cross-cutting audit of CONTRACT §2, §5, §6 and §9 with hostile input, against the real server over HTTP.
 * One seeded server (a product type with modules, imported treatments with images, two firmwares, checked-in
 * devices) serves every step. Each step gathers all its findings and fails once with the whole list, so one run
 * names every broken case. The fuzz uses a seeded PRNG: a failure names its route, seed and iteration.
 */
import assert from "node:assert/strict";
import { type ApiClient, DeviceClient } from "../../shared/client.ts";
import { DatabaseSync } from "node:sqlite";
import { generateTreatments, IMPORT_SCHEMA, makeImportDb } from "../../testing/import_db.ts";
import { fileSource, makeXzFile } from "../../testing/files.ts";
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  DEVICE_API_KEY,
  listFiles,
  startServer,
  type TestServer,
} from "../../testing/server.ts";
import {
  assertErrorBody,
  getAt,
  HOSTILE_STRINGS,
  type Json,
  type JsonPath,
  jwt,
  kindOf,
  multipart,
  mutate,
  mutateText,
  nest,
  paths,
  prng,
  setAt,
  wrongTypes,
} from "../helpers/hostile.ts";

const JWT_SECRET = "audit-jwt-secret-0123456789-abcdefghijkl";
const MAX_FIRMWARE_BYTES = 1 << 20;
const FUZZ_ITERATIONS = 300;
const FUZZ_SEED = 0xa0d17;

// ---------------------------------------------------------------- plumbing

interface Res {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

interface SendOptions {
  /** The raw Authorization header; `token` sets a Bearer one. */
  auth?: string;
  token?: string;
  json?: unknown;
  body?: BodyInit;
  contentType?: string;
  headers?: Record<string, string>;
}

async function send(srv: TestServer, method: string, path: string, o: SendOptions = {}): Promise<Res> {
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
class Findings {
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

const describe = (r: Res) => `${r.status} ${r.text.slice(0, 300)}`;

/**
 * Checks a refusal: one of `statuses`, a CONTRACT §2 error body, and (when given) a msg that names `field`.
 * Returns the error body, or null when the check failed.
 */
function refused(
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

/** Never a 500; any 4xx/5xx carries a CONTRACT §2 error body. */
function sane(f: Findings, label: string, r: Res) {
  f.check(label, () => {
    assert.ok(r.status < 500, `server error ${describe(r)}`);
    if (r.status >= 400) assertErrorBody(r.status, r.json, "error body");
  });
}

// ---------------------------------------------------------------- seed

interface Seed {
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
  const extra = patched.modules.find((m) => m.name === "Extra")!;
  await api.patchDevice({
    deviceId: "dev-001",
    productTypeId: pt._id,
    moduleIds: [extra._id],
    firmware: fwA._id,
    additionalTreatmentIds: [treatmentIds[3]],
  });

  return {
    srv,
    api,
    token: api.token,
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
  };
}

// ---------------------------------------------------------------- state snapshots

interface Snapshot {
  lists: Record<string, unknown>;
  files: string[];
  tmp: string[];
}

const LISTS = [
  "/api/v1/devices?page=0&rowsPerPage=100",
  "/api/v1/device_types",
  "/api/v1/device_firmwares",
  "/api/v1/treatments",
  "/api/v1/product_types",
];

async function snapshot(s: Seed): Promise<Snapshot> {
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

/** Compares two snapshots; a refused request must leave lists and files as they were, and tmp empty. */
function unchanged(f: Findings, label: string, before: Snapshot, after: Snapshot) {
  f.check(label, () => {
    for (const path of LISTS) {
      assert.deepEqual(after.lists[path], before.lists[path], `state changed after a refused request: GET ${path}`);
    }
    assert.deepEqual(after.files, before.files, "files in DATA_DIR changed after a refused request");
    assert.deepEqual(after.tmp, [], "DATA_DIR/tmp is not empty after a refused request");
  });
}

// ---------------------------------------------------------------- route tables (CONTRACT §5, §6)

interface RouteDef {
  method: string;
  path: string;
  kind: "none" | "json" | "multipart";
  auth: "operator" | "device";
  /** A valid body: if auth were skipped, the state would change. */
  body?: () => Promise<SendOptions>;
}

function xzBytes(text: string) {
  return new Uint8Array([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00, ...new TextEncoder().encode(text)]);
}

function allRoutes(s: Seed): RouteDef[] {
  const fwUpload = () =>
    Promise.resolve({
      body: multipart("audit", [{ name: "file", filename: "fw-auth.xz", data: xzBytes("auth") }]),
      contentType: "multipart/form-data; boundary=audit",
    });
  const importUpload = async () => {
    const path = `${s.tmp}/auth.sqlite3`;
    makeImportDb(path, generateTreatments(1, { phases: 1, channels: 1, namePrefix: "AuthBypass" }));
    return {
      body: multipart("audit", [{ name: "file", filename: "auth.sqlite3", data: await Deno.readFile(path) }]),
      contentType: "multipart/form-data; boundary=audit",
    };
  };
  const json = (value: unknown) => () => Promise.resolve({ json: value });
  const op = (method: string, path: string, kind: RouteDef["kind"] = "none", body?: RouteDef["body"]): RouteDef => ({
    method,
    path,
    kind,
    auth: "operator",
    body,
  });
  const dev = (method: string, rest: string, kind: RouteDef["kind"] = "none", body?: RouteDef["body"]): RouteDef => ({
    method,
    path: `/api/v1/device/dev-004/${rest}`,
    kind,
    auth: "device",
    body,
  });
  return [
    op("POST", "/api/v1/change_password", "json", json({ old_password: ADMIN_PASSWORD, new_password: "new-pass-123" })),
    op("GET", "/api/v1/devices"),
    op("GET", "/api/v1/devices/dev-001"),
    op("PATCH", "/api/v1/devices/dev-005", "json", json({ deviceId: "dev-005", firmware: s.fwA._id })),
    op("DELETE", "/api/v1/devices/dev-005"),
    op("GET", "/api/v1/device_types"),
    op("PATCH", `/api/v1/device_types/${s.dtId}`, "json", json({ _id: s.dtId, defaultFirmware: null })),
    op("GET", "/api/v1/device_firmwares"),
    op("POST", "/api/v1/device_firmwares", "multipart", fwUpload),
    op("GET", `/api/v1/device_firmwares/${s.fwA._id}/file`),
    op("DELETE", `/api/v1/device_firmwares/${s.fwA._id}`),
    op("GET", "/api/v1/treatments"),
    op("GET", `/api/v1/treatments/${s.treatmentIds[0]}`),
    op("POST", "/api/v1/treatments/import", "multipart", importUpload),
    op("GET", `/api/v1/treatment_images/${s.imageId}`),
    op("GET", "/api/v1/product_types"),
    op("POST", "/api/v1/product_types", "json", json({ name: "Auth bypass" })),
    op("GET", `/api/v1/product_types/${s.ptId}`),
    op("PATCH", `/api/v1/product_types/${s.pt2Id}`, "json", json({ _id: s.pt2Id, name: "Renamed", modules: [] })),
    op("DELETE", `/api/v1/product_types/${s.pt2Id}`),
    dev("POST", "checkin", "json", json({ versionInfo: { app: "9.9.9", os: "hacked", channels: [] } })),
    dev("GET", "config"),
    dev("GET", "firmware"),
  ];
}

/** A JSON route with a valid base body read from the current state, for per-field and fuzz tests. */
interface JsonRoute {
  label: string;
  method: string;
  path: string;
  auth: "operator" | "device" | "public";
  base: () => Promise<Json>;
  /** Dotted paths (array indices dropped) that may be null. */
  nullable: string[];
  /** Dotted paths that may be absent. */
  optional: string[];
  /** Dotted-path prefixes whose values may be anything (the theme). */
  free?: string[];
  /** POST login: every refusal is 401 invalid_credentials (CONTRACT §3), or 429 once throttled. */
  login?: boolean;
  /** A route whose valid-shaped refusals carry a fixed msg (change_password's wrong old password). */
  fixedMsg?: boolean;
  /** After a 2xx, the entity in which the sent path should read back the sent value. */
  echo?: (r: Res) => Promise<unknown>;
}

const dotted = (p: JsonPath) => p.filter((k) => typeof k === "string").join(".");
const fieldName = (p: JsonPath) => String([...p].reverse().find((k) => typeof k === "string") ?? "body");

function jsonRoutes(s: Seed): JsonRoute[] {
  const currentPt = async (): Promise<Json> => {
    const r = await send(s.srv, "GET", `/api/v1/product_types/${s.ptId}`, { token: s.token });
    const pt = r.json as {
      _id: string;
      name: string;
      theme: Json;
      modules: { _id: string; name: string; isDefault: boolean; treatmentIds: string[] }[];
    };
    return {
      _id: pt._id,
      name: pt.name,
      theme: pt.theme,
      modules: pt.modules.map(({ _id, name, isDefault, treatmentIds }) => ({ _id, name, isDefault, treatmentIds })),
    };
  };
  const nonDefaultModules = async () => {
    const pt = await currentPt() as { modules: { _id: string; isDefault: boolean }[] };
    return pt.modules.filter((m) => !m.isDefault).map((m) => m._id).slice(0, 1);
  };
  const self = (r: Res) => Promise.resolve(r.json);
  return [
    {
      label: "POST login",
      method: "POST",
      path: "/api/v1/login",
      auth: "public",
      base: () => Promise.resolve({ email: "nobody@example.com", password: "not-the-password" }),
      nullable: [],
      optional: [],
      login: true,
    },
    {
      label: "POST change_password",
      method: "POST",
      path: "/api/v1/change_password",
      auth: "operator",
      base: () => Promise.resolve({ old_password: "wrong-password-0", new_password: "new-password-123" }),
      nullable: [],
      optional: [],
      fixedMsg: true,
    },
    {
      label: "PATCH devices/dev-002",
      method: "PATCH",
      path: "/api/v1/devices/dev-002",
      auth: "operator",
      base: async () => ({
        deviceId: "dev-002",
        productTypeId: s.ptId,
        moduleIds: await nonDefaultModules(),
        firmware: s.fwA._id,
        additionalTreatmentIds: [s.treatmentIds[4]],
      }),
      nullable: ["productTypeId", "firmware"],
      optional: ["productTypeId", "moduleIds", "firmware", "additionalTreatmentIds"],
      echo: self,
    },
    {
      label: "PATCH device_types",
      method: "PATCH",
      path: `/api/v1/device_types/${s.dtId}`,
      auth: "operator",
      base: () => Promise.resolve({ _id: s.dtId, defaultFirmware: s.fwB._id }),
      nullable: ["defaultFirmware"],
      optional: [],
      echo: self,
    },
    {
      label: "POST product_types",
      method: "POST",
      path: "/api/v1/product_types",
      auth: "operator",
      base: () => Promise.resolve({ name: "Audit created" }),
      nullable: [],
      optional: [],
      echo: self,
    },
    {
      label: "POST device/dev-003/checkin",
      method: "POST",
      path: "/api/v1/device/dev-003/checkin",
      auth: "device",
      base: () => Promise.resolve({ versionInfo: { app: "1.0.0", os: "linux", channels: ["a", "b"] } }),
      nullable: ["versionInfo.app", "versionInfo.os"],
      optional: [],
      echo: async () => (await send(s.srv, "GET", "/api/v1/devices/dev-003", { token: s.token })).json,
    },
    {
      label: "PATCH product_types",
      method: "PATCH",
      path: `/api/v1/product_types/${s.ptId}`,
      auth: "operator",
      base: currentPt,
      nullable: [],
      optional: ["theme", "modules._id"],
      free: ["theme."],
      echo: self,
    },
  ];
}

function authFor(s: Seed, route: { auth: string }): SendOptions {
  if (route.auth === "operator") return { token: s.token };
  if (route.auth === "device") return { token: DEVICE_API_KEY };
  return {};
}

/** Sends a JSON route with raw text and a content type. */
function sendText(s: Seed, route: JsonRoute, text: string | BodyInit, contentType?: string) {
  return send(s.srv, route.method, route.path, { ...authFor(s, route), body: text, contentType });
}

// ---------------------------------------------------------------- the audit

Deno.test("contract audit: hostile input against every route (CONTRACT §2, §5, §6, §9)", async (t) => {
  await using srv = await startServer({
    env: { JWT_SECRET, MAX_FIRMWARE_BYTES: String(MAX_FIRMWARE_BYTES), LOG_LEVEL: "info" },
  });
  const s = await seed(srv);
  /** Every route of `auth`, with each Authorization header variant (undefined: none), must be a 401 unauthorized. */
  const refuseEveryVariant = async (f: Findings, auth: RouteDef["auth"], variants: [string, string | undefined][]) => {
    for (const route of allRoutes(s).filter((r) => r.auth === auth)) {
      for (const [name, header] of variants) {
        const body = route.body ? await route.body() : {};
        const r = await send(srv, route.method, route.path, {
          ...body,
          ...(header === undefined ? {} : { auth: header }),
        });
        refused(f, `${route.method} ${route.path} [${name}]`, r, [401], { code: "unauthorized" });
      }
    }
  };
  try {
    await t.step("§2 every operator route refuses a missing, malformed or forged token with 401", async () => {
      const f = new Findings();
      const now = Math.floor(Date.now() / 1000);
      const variants: [string, string | undefined][] = [
        ["no Authorization", undefined],
        ["garbage bearer", "Bearer garbage"],
        ["empty bearer", "Bearer "],
        ["bare token", s.token],
        ["tampered signature", `Bearer ${s.token.slice(0, -2)}${s.token.endsWith("AA") ? "BB" : "AA"}`],
        ["Basic credentials", `Basic ${btoa(`${ADMIN_EMAIL}:${ADMIN_PASSWORD}`)}`],
        ["alg none", `Bearer ${jwt({ sub: ADMIN_EMAIL, iat: now, exp: now + 3600, pwv: 0 }, null)}`],
        ["wrong secret", `Bearer ${jwt({ sub: ADMIN_EMAIL, iat: now, exp: now + 3600, pwv: 0 }, "x".repeat(40))}`],
        ["expired", `Bearer ${jwt({ sub: ADMIN_EMAIL, iat: now - 7200, exp: now - 3600, pwv: 0 }, JWT_SECRET)}`],
        ["unknown operator", `Bearer ${jwt({ sub: "ghost@example.com", iat: now, exp: now + 3600 }, JWT_SECRET)}`],
        ["device key", `Bearer ${DEVICE_API_KEY}`],
        ["two tokens", `Bearer ${s.token} Bearer ${s.token}`],
      ];
      const before = await snapshot(s);
      await refuseEveryVariant(f, "operator", variants);
      unchanged(f, "after the 401s", before, await snapshot(s));
      f.done();
    });

    await t.step("§6 device routes refuse an operator token or a wrong key with 401", async () => {
      const f = new Findings();
      const variants: [string, string | undefined][] = [
        ["no Authorization", undefined],
        ["operator token", `Bearer ${s.token}`],
        ["garbage", "Bearer garbage"],
        ["key with suffix", `Bearer ${DEVICE_API_KEY}x`],
        ["key prefix", `Bearer ${DEVICE_API_KEY.slice(0, -1)}`],
        ["Basic key", `Basic ${btoa(`device:${DEVICE_API_KEY}`)}`],
        ["bare key", DEVICE_API_KEY],
      ];
      const before = await snapshot(s);
      await refuseEveryVariant(f, "device", variants);
      // An unknown device with a wrong key must not be created either.
      const r = await send(srv, "POST", "/api/v1/device/dev-intruder/checkin", {
        token: s.token,
        json: { versionInfo: { app: null, os: null, channels: [] } },
      });
      refused(f, "checkin of a new device with the operator token", r, [401], { code: "unauthorized" });
      unchanged(f, "after the 401s", before, await snapshot(s));
      f.done();
    });

    await t.step("§2 hostile JSON bodies: 4xx {error,msg} naming the field, never 500, state unchanged", async () => {
      const f = new Findings();
      let last = await snapshot(s);
      const sent = new Map<string, number>();
      const after = async (label: string, r: Res) => {
        const now = await snapshot(s);
        if (r.status >= 400) unchanged(f, label, last, now);
        last = now;
        const route = label.slice(0, label.indexOf(" ["));
        sent.set(route, (sent.get(route) ?? 0) + 1);
      };

      for (const route of jsonRoutes(s)) {
        const L = (what: string) => `${route.label} [${what}]`;
        /** The statuses a refusal of a body that must be refused may carry, and the field its msg must name. */
        const mustRefuse = (label: string, r: Res, field?: string) => {
          if (route.login) refused(f, label, r, [401, 429]);
          else refused(f, label, r, [400], { code: "invalid_request", field });
        };

        // Content types other than JSON, with a valid body.
        const valid = JSON.stringify(await route.base());
        for (
          const type of [
            undefined,
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
            "application/xml",
            "application/jsonp",
          ]
        ) {
          const r = await sendText(s, route, valid, type);
          if (route.login) refused(f, L(`content-type ${type}`), r, [401, 415, 400]);
          else refused(f, L(`content-type ${type}`), r, [415, 400]);
          await after(L(`content-type ${type}`), r);
        }

        // Malformed JSON and non-object bodies.
        for (
          const text of [
            "",
            "{",
            "{'a': 1}",
            "nul",
            "[1,]",
            '{"a":1}}',
            valid.slice(0, -1),
            "\u0000",
            "null",
            "[]",
            `[${valid}]`,
            '"a string"',
            "42",
            "true",
            "{}",
          ]
        ) {
          const r = await sendText(s, route, text, "application/json");
          mustRefuse(L(`body ${JSON.stringify(text.slice(0, 40))}`), r);
          await after(L(`body ${text.slice(0, 40)}`), r);
        }

        // Unknown members, at the top and in every nested object (but not inside the free-form theme).
        const base = await route.base();
        const objects: JsonPath[] = [[], ...paths(base).filter((p) => kindOf(getAt(base, p)) === "object")];
        for (const p of objects) {
          if (route.free?.some((prefix) => `${dotted(p)}.`.startsWith(prefix))) continue;
          const body = setAt(base, [...p, "unknown_member"], 1);
          const r = await sendText(s, route, JSON.stringify(body), "application/json");
          mustRefuse(L(`unknown member at ${p.join(".") || "top"}`), r, "unknown_member");
          await after(L(`unknown member at ${p.join(".")}`), r);
        }
        {
          const text = `{"__proto__": {"admin": true}, ${valid.slice(1)}`;
          const r = await sendText(s, route, text, "application/json");
          mustRefuse(L("__proto__ member"), r, "__proto__");
          await after(L("__proto__ member"), r);
        }

        // Every field: a wrong type, null where not nullable, absent where required.
        for (const p of paths(base)) {
          const key = dotted(p);
          if (route.free?.some((prefix) => key.startsWith(prefix))) continue;
          const field = fieldName(p);
          const value = getAt(base, p);
          const cases: [string, Json | undefined][] = wrongTypes(kindOf(value)).map((v) => [JSON.stringify(v), v]);
          if (!route.nullable.includes(key)) cases.push(["null", null]);
          if (typeof p[p.length - 1] === "string" && !route.optional.includes(key)) cases.push(["absent", undefined]);
          for (const [what, v] of cases) {
            const current = await route.base();
            if (getAt(current, p) === undefined) continue; // the path moved with the state
            const r = await sendText(s, route, JSON.stringify(setAt(current, p, v)), "application/json");
            mustRefuse(L(`${p.join(".")} = ${what}`), r, route.login ? undefined : field);
            await after(L(`${p.join(".")} = ${what}`), r);
          }
        }

        // Every string: hostile values. Accepted or refused, never a 500; a refusal names the field; an
        // acceptance stores exactly what was sent (names trimmed).
        for (const p of paths(base).filter((p) => typeof getAt(base, p) === "string")) {
          const field = fieldName(p);
          for (const { label, value } of HOSTILE_STRINGS) {
            const current = await route.base();
            if (typeof getAt(current, p) !== "string") continue;
            const what = L(`${p.join(".")} = ${label}`);
            const r = await sendText(s, route, JSON.stringify(setAt(current, p, value)), "application/json");
            sane(f, what, r);
            if (r.status >= 400 && r.status < 500) {
              if (route.login) refused(f, what, r, [401, 429]);
              else if (r.status !== 409 && !route.fixedMsg) refused(f, what, r, [400], { field });
            } else if (r.status < 300 && route.echo) {
              const entity = await route.echo(r);
              const expected = field === "name" ? value.trim() : value;
              f.check(what, () =>
                assert.deepEqual(
                  getAt(entity, p),
                  expected,
                  `accepted (${r.status}) but stored ${JSON.stringify(getAt(entity, p))?.slice(0, 80)}`,
                ));
            }
            await after(what, r);
          }
        }
      }
      // Every route saw its share of hostile bodies (the loops above cannot silently skip a route).
      for (const route of jsonRoutes(s)) {
        f.check(
          route.label,
          () => assert.ok((sent.get(route.label) ?? 0) >= 40, `only ${sent.get(route.label)} requests`),
        );
      }
      f.done();
    });

    await t.step("§2 a deeply nested body never yields a 500", async () => {
      const f = new Findings();
      // 1 MiB allows ~100k levels: a recursive validator or serializer overflows its stack on such input.
      const deep = (depth: number) => '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
      const deepArr = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
      const ptBody = (await jsonRoutes(s).find((r) => r.label === "PATCH product_types")!.base()) as Record<
        string,
        Json
      >;
      const withTheme = (theme: string) => JSON.stringify({ ...ptBody, theme: "@@" }).replace('"@@"', theme);
      for (const depth of [1_000, 50_000]) {
        // [label, path, body, may the server accept it?] A deep theme is free-form data within 64 KiB.
        const cases: [string, string, string, boolean][] = [
          ["PATCH product_types theme", `/api/v1/product_types/${s.ptId}`, withTheme(deep(depth)), depth < 10_000],
          [
            "PATCH product_types theme array",
            `/api/v1/product_types/${s.ptId}`,
            withTheme(`{"a":${deepArr(depth)}}`),
            depth < 10_000,
          ],
          ["POST product_types", "/api/v1/product_types", `{"name":${deep(depth)}}`, false],
          ["PATCH devices", "/api/v1/devices/dev-002", `{"deviceId":"dev-002","moduleIds":${deepArr(depth)}}`, false],
        ];
        for (const [label, path, text, mayAccept] of cases) {
          const before = await snapshot(s);
          const method = label.split(" ")[0];
          const r = await send(srv, method, path, { token: s.token, body: text, contentType: "application/json" });
          sane(f, `${label} depth ${depth}`, r);
          if (r.status >= 400) unchanged(f, `${label} depth ${depth}`, before, await snapshot(s));
          else if (!mayAccept) f.add(`${label} depth ${depth}`, `accepted: ${describe(r)}`);
        }
      }
      // Put the theme back for the steps that follow.
      const r = await send(srv, "PATCH", `/api/v1/product_types/${s.ptId}`, { token: s.token, json: ptBody });
      assert.equal(r.status, 200, describe(r));
      f.done();
    });

    await t.step("§5 path parameters: unknown ids 404, hostile ids 4xx, never 500", async () => {
      const f = new Findings();
      let last = await snapshot(s);
      const after = async (label: string, r: Res) => {
        const now = await snapshot(s);
        if (r.status >= 400) unchanged(f, label, last, now);
        last = now;
      };
      const decode = (raw: string) => {
        try {
          return decodeURIComponent(raw);
        } catch {
          return raw;
        }
      };
      type IdRoute = { method: string; path: (id: string) => string; body?: (id: string) => Json; device?: boolean };
      const idRoutes: IdRoute[] = [
        { method: "GET", path: (id) => `/api/v1/devices/${id}` },
        {
          method: "PATCH",
          path: (id) => `/api/v1/devices/${id}`,
          body: (id) => ({ deviceId: id, firmware: null }),
        },
        { method: "DELETE", path: (id) => `/api/v1/devices/${id}` },
        {
          method: "PATCH",
          path: (id) => `/api/v1/device_types/${id}`,
          body: (id) => ({ _id: id, defaultFirmware: null }),
        },
        { method: "GET", path: (id) => `/api/v1/device_firmwares/${id}/file` },
        { method: "DELETE", path: (id) => `/api/v1/device_firmwares/${id}` },
        { method: "GET", path: (id) => `/api/v1/treatments/${id}` },
        { method: "GET", path: (id) => `/api/v1/treatment_images/${id}` },
        { method: "GET", path: (id) => `/api/v1/product_types/${id}` },
        {
          method: "PATCH",
          path: (id) => `/api/v1/product_types/${id}`,
          body: (id) => ({ _id: id, name: "Renamed by path test", modules: [] }),
        },
        { method: "DELETE", path: (id) => `/api/v1/product_types/${id}` },
        { method: "GET", path: (id) => `/api/v1/device/${id}/config`, device: true },
        { method: "GET", path: (id) => `/api/v1/device/${id}/firmware`, device: true },
      ];
      const call = (route: IdRoute, raw: string) =>
        send(srv, route.method, route.path(raw), {
          token: route.device ? DEVICE_API_KEY : s.token,
          ...(route.body ? { json: route.body(decode(raw)) } : {}),
        });

      // Unknown but well-formed ids: 404 not_found.
      for (const route of idRoutes) {
        for (const id of ["unknown-id-0001", "0", "null"]) {
          const label = `${route.method} ${route.path(id)}`;
          const r = await call(route, id);
          refused(f, label, r, [404], { code: "not_found" });
          await after(label, r);
        }
      }

      // Hostile ids: 4xx with an error body, never a 500, never a change.
      const hostile = [
        "x".repeat(5_000),
        "%00",
        "a%00b",
        "..%2F..%2Fetc%2Fpasswd",
        "..%5C..%5Cwindows",
        "%F0%9F%A6%84",
        "%E2%80%AE",
        "a%20b",
        "%20",
        "%ZZ",
        "%",
        "%C0%AF",
        "%FF%FE",
        "a'%20OR%20'1'='1",
        "%25",
        "%0A",
      ];
      for (const route of idRoutes) {
        for (const raw of hostile) {
          const label = `${route.method} ${route.path(raw).slice(0, 80)}`;
          const r = await call(route, raw);
          refused(f, label, r, [400, 404]);
          await after(label, r);
        }
      }
      // The device API's check-in creates unknown devices: a malformed deviceId is refused with 400.
      for (const raw of hostile) {
        const label = `POST /api/v1/device/${raw.slice(0, 40)}/checkin`;
        const r = await send(srv, "POST", `/api/v1/device/${raw}/checkin`, {
          token: DEVICE_API_KEY,
          json: { versionInfo: { app: "1", os: "1", channels: [] } },
        });
        refused(f, label, r, [400, 404], { field: r.status === 400 ? "deviceId" : undefined });
        await after(label, r);
      }
      f.done();
    });

    await t.step("§5 GET devices query parameters", async () => {
      const f = new Findings();
      const get = (query: string) => send(srv, "GET", `/api/v1/devices?${query}`, { token: s.token });
      const bad: [string, string][] = [
        ["page=-1", "page"],
        ["page=1e3", "page"],
        ["page=abc", "page"],
        ["page=1.5", "page"],
        ["page=", "page"],
        ["page=%00", "page"],
        ["page=99999999999999999999", "page"],
        ["page=0x10", "page"],
        ["page=%20", "page"],
        ["rowsPerPage=0", "rowsPerPage"],
        ["rowsPerPage=101", "rowsPerPage"],
        ["rowsPerPage=abc", "rowsPerPage"],
        ["rowsPerPage=-5", "rowsPerPage"],
        ["rowsPerPage=1e1", "rowsPerPage"],
        ["rowsPerPage=", "rowsPerPage"],
        ["rowsPerPage=10.0", "rowsPerPage"],
      ];
      for (const [query, field] of bad) {
        refused(f, `GET devices?${query}`, await get(query), [400], { code: "invalid_request", field });
      }
      // q within limits: a case-insensitive substring of deviceId; LIKE wildcards match literally.
      const ok = async (query: string, total: number) => {
        const r = await get(query);
        f.check(`GET devices?${query}`, () => {
          assert.equal(r.status, 200, describe(r));
          assert.equal((r.json as { total: number }).total, total, `total for ${query}`);
        });
      };
      await ok("q=dev-00", 5);
      await ok("q=DEV-00", 5);
      await ok("q=%25", 0);
      await ok("q=_", 0);
      await ok("q=%5C", 0);
      await ok(`q=${encodeURIComponent("🦄")}`, 0);
      await ok("rowsPerPage=100&page=1000000", 5);
      await ok("rowsPerPage=100&page=1000000000", 5);
      // Repeated parameters and a 1,000-character q: a 400, or a 200 that honours one of the values.
      for (const query of ["page=0&page=1", "rowsPerPage=10&rowsPerPage=0", "q=dev&q=zzz"]) {
        const r = await get(query);
        sane(f, `GET devices?${query}`, r);
      }
      {
        const r = await get(`q=${"d".repeat(1_000)}`);
        sane(f, "GET devices?q=<1000 chars>", r);
        if (r.status === 200) {
          const total = (r.json as { total: number }).total;
          f.check("GET devices?q=<1000 chars>", () => assert.equal(total, 0, `matched ${total} devices`));
        } else refused(f, "GET devices?q=<1000 chars>", r, [400], { field: "q" });
      }
      {
        const r = await get("q=%00");
        sane(f, "GET devices?q=%00", r);
        if (r.status === 200) {
          const total = (r.json as { total: number }).total;
          f.check("GET devices?q=%00", () => assert.equal(total, 0, `a NUL filter matched ${total} devices`));
        }
      }
      f.done();
    });

    await t.step("§2/§5 bodies: 2 MiB JSON is 413; multipart misuse is 4xx and leaves no file behind", async () => {
      const f = new Findings();
      let last = await snapshot(s);
      const firmwareFiles = async () => await listFiles(`${srv.dataDir}/firmwares`);
      const fwBefore = await firmwareFiles();
      const after = async (label: string, r: Res) => {
        const now = await snapshot(s);
        if (r.status >= 400) unchanged(f, label, last, now);
        last = now;
      };

      const big = "x".repeat(2 * 1024 * 1024);
      for (const route of jsonRoutes(s)) {
        const body = JSON.stringify(setAt(await route.base(), ["pad"], big));
        const r1 = await sendText(s, route, body, "application/json");
        refused(
          f,
          `${route.label} [2 MiB]`,
          r1,
          route.login ? [401, 413] : [413],
          route.login ? {} : { code: "too_large" },
        );
        await after(`${route.label} [2 MiB]`, r1);
        // The same without a Content-Length (chunked): the limit still holds.
        const bytes = new TextEncoder().encode(body);
        const stream = new ReadableStream<Uint8Array>({
          start(c) {
            for (let i = 0; i < bytes.length; i += 64 * 1024) c.enqueue(bytes.subarray(i, i + 64 * 1024));
            c.close();
          },
        });
        const r2 = await sendText(s, route, stream, "application/json");
        refused(f, `${route.label} [2 MiB chunked]`, r2, route.login ? [401, 413] : [413]);
        await after(`${route.label} [2 MiB chunked]`, r2);
      }

      const importPath = `${s.tmp}/multipart.sqlite3`;
      makeImportDb(importPath, generateTreatments(1, { phases: 1, channels: 1, namePrefix: "Multipart" }));
      const sqlite = await Deno.readFile(importPath);
      const uploads = [
        { path: "/api/v1/device_firmwares", name: "new-fw.xz", data: xzBytes("new firmware") },
        { path: "/api/v1/treatments/import", name: "new.sqlite3", data: sqlite },
      ];
      const B = "----audit-boundary";
      const mp = `multipart/form-data; boundary=${B}`;
      for (const u of uploads) {
        const cases: [string, SendOptions, number[]][] = [
          ["JSON body", { json: { file: "x" } }, [415]],
          ["text/plain body", { body: "file=x", contentType: "text/plain" }, [415]],
          ["no content type", { body: u.data }, [415, 400]],
          ["urlencoded", { body: "file=abc", contentType: "application/x-www-form-urlencoded" }, [415, 400]],
          [
            "wrong field",
            { body: multipart(B, [{ name: "upload", filename: u.name, data: u.data }]), contentType: mp },
            [
              400,
            ],
          ],
          [
            "two files",
            {
              body: multipart(B, [{ name: "file", filename: u.name, data: u.data }, {
                name: "file",
                filename: `2${u.name}`,
                data: u.data,
              }]),
              contentType: mp,
            },
            [400],
          ],
          ["no file", { body: multipart(B, [{ name: "other", data: "value" }]), contentType: mp }, [400]],
          ["file as a text field", { body: multipart(B, [{ name: "file", data: "value" }]), contentType: mp }, [400]],
          ["empty multipart", { body: `--${B}--\r\n`, contentType: mp }, [400]],
          ["empty body", { body: "", contentType: mp }, [400]],
          ["missing boundary", {
            body: multipart(B, [{ name: "file", filename: u.name, data: u.data }]),
            contentType: "multipart/form-data",
          }, [
            400,
            415,
          ]],
          [
            "wrong boundary",
            { body: multipart(B, [{ name: "file", filename: u.name, data: u.data }]), contentType: `${mp}x` },
            [400],
          ],
          [
            "truncated",
            { body: multipart(B, [{ name: "file", filename: u.name, data: u.data }], false), contentType: mp },
            [400],
          ],
          [
            "empty file name",
            { body: multipart(B, [{ name: "file", filename: "", data: u.data }]), contentType: mp },
            [400, 415],
          ],
          [
            "control chars in name",
            { body: multipart(B, [{ name: "file", filename: `a\u0001${u.name}`, data: u.data }]), contentType: mp },
            [400, 415],
          ],
          [
            "only a directory",
            { body: multipart(B, [{ name: "file", filename: "../", data: u.data }]), contentType: mp },
            [400, 415],
          ],
          [
            "wrong extension",
            { body: multipart(B, [{ name: "file", filename: "firmware.bin", data: u.data }]), contentType: mp },
            [415, 400],
          ],
          [
            "wrong content",
            {
              body: multipart(B, [{ name: "file", filename: u.name, data: "not the right bytes at all" }]),
              contentType: mp,
            },
            u.path.includes("import") ? [400] : [415],
          ],
          [
            "empty file",
            { body: multipart(B, [{ name: "file", filename: u.name, data: "" }]), contentType: mp },
            u.path.includes("import") ? [400] : [415],
          ],
        ];
        if (u.path.includes("firmwares")) {
          cases.push([
            "over MAX_FIRMWARE_BYTES",
            {
              body: multipart(B, [{
                name: "file",
                filename: u.name,
                data: new Uint8Array([...xzBytes(""), ...new Uint8Array(MAX_FIRMWARE_BYTES + 1024)]),
              }]),
              contentType: mp,
            },
            [413],
          ]);
          cases.push([
            "a name already uploaded",
            { body: multipart(B, [{ name: "file", filename: "fw-a.xz", data: u.data }]), contentType: mp },
            [409],
          ]);
          cases.push([
            "a name already uploaded, behind a path",
            { body: multipart(B, [{ name: "file", filename: "../../x/fw-a.xz", data: u.data }]), contentType: mp },
            [409],
          ]);
        }
        for (const [what, opts, statuses] of cases) {
          const label = `POST ${u.path} [${what}]`;
          const r = await send(srv, "POST", u.path, { token: s.token, ...opts });
          refused(f, label, r, statuses);
          await after(label, r);
        }
      }
      const fwAfter = await firmwareFiles();
      f.check("DATA_DIR/firmwares after the refused uploads", () => assert.deepEqual(fwAfter, fwBefore));
      f.done();
    });

    await t.step("§2 the 1 MiB JSON limit holds while a chunked body streams (memory stays flat)", async () => {
      const f = new Findings();
      const peakKiB = async () => {
        const status = await Deno.readTextFile(`/proc/${srv.process.pid}/status`);
        return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]);
      };
      const TOTAL = 256 * 1024 * 1024;
      for (
        const [label, method, path, token, statuses] of [
          ["POST login (no token needed)", "POST", "/api/v1/login", undefined, [401, 413]],
          ["PATCH device_types", "PATCH", `/api/v1/device_types/${s.dtId}`, s.token, [413]],
        ] as const
      ) {
        const before = await peakKiB();
        let sent = 0;
        const te = new TextEncoder();
        const chunk = te.encode("x".repeat(1024 * 1024));
        const body = new ReadableStream<Uint8Array>({
          start(c) {
            c.enqueue(te.encode('{"email":"'));
          },
          pull(c) {
            if (sent >= TOTAL) {
              c.enqueue(te.encode('","password":"x"}'));
              c.close();
              return;
            }
            c.enqueue(chunk);
            sent += chunk.length;
          },
        });
        const headers: Record<string, string> = { "content-type": "application/json" };
        if (token) headers.authorization = `Bearer ${token}`;
        // The server may answer and close before the body is through: a send error is an acceptable end.
        const r = await fetch(`${srv.url}${path}`, { method, headers, body }).then(
          async (res) => ({ status: res.status, text: await res.text() }),
          (err) => ({ status: 0, text: String(err) }),
        );
        const grew = (await peakKiB()) - before;
        f.check(`${label}: ${sent >> 20} MiB streamed`, () => {
          if (r.status !== 0) assert.ok((statuses as readonly number[]).includes(r.status), `${r.status} ${r.text}`);
          assert.ok(
            grew < 64 * 1024,
            `the server's peak memory grew by ${grew >> 10} MiB: the body was buffered whole`,
          );
        });
      }
      f.done();
    });

    await t.step("§5 rules with hostile combinations: the right 4xx, the field named, nothing changed", async () => {
      const f = new Findings();
      const pt2 = (await send(srv, "GET", `/api/v1/product_types/${s.pt2Id}`, { token: s.token })).json as {
        modules: { _id: string }[];
      };
      const foreignModule = pt2.modules[0]._id;
      const ptBody = (await jsonRoutes(s).find((r) => r.label === "PATCH product_types")!.base()) as {
        modules: Record<string, Json>[];
      } & Record<string, Json>;
      const [m0, m1] = ptBody.modules;
      const cases: [string, string, string, Json, number, string?][] = [
        [
          "module of another type",
          "PATCH",
          "/api/v1/devices/dev-002",
          {
            deviceId: "dev-002",
            productTypeId: s.ptId,
            moduleIds: [foreignModule],
          },
          400,
          "moduleIds",
        ],
        [
          "modules of the old type with a new type",
          "PATCH",
          "/api/v1/devices/dev-001",
          {
            deviceId: "dev-001",
            productTypeId: s.pt2Id,
            moduleIds: [s.extraModuleId],
          },
          400,
          "moduleIds",
        ],
        [
          "modules without a product type",
          "PATCH",
          "/api/v1/devices/dev-003",
          {
            deviceId: "dev-003",
            moduleIds: [s.extraModuleId],
          },
          400,
          "moduleIds",
        ],
        [
          "duplicate moduleIds",
          "PATCH",
          "/api/v1/devices/dev-001",
          {
            deviceId: "dev-001",
            moduleIds: [s.extraModuleId, s.extraModuleId],
          },
          400,
          "moduleIds",
        ],
        [
          "duplicate additionalTreatmentIds",
          "PATCH",
          "/api/v1/devices/dev-001",
          {
            deviceId: "dev-001",
            additionalTreatmentIds: [s.treatmentIds[0], s.treatmentIds[0]],
          },
          400,
          "additionalTreatmentIds",
        ],
        [
          "a module id as a treatment id",
          "PATCH",
          "/api/v1/devices/dev-001",
          {
            deviceId: "dev-001",
            additionalTreatmentIds: [s.extraModuleId],
          },
          400,
          "additionalTreatmentIds",
        ],
        [
          "a treatment id as a firmware",
          "PATCH",
          "/api/v1/devices/dev-001",
          {
            deviceId: "dev-001",
            firmware: s.treatmentIds[0],
          },
          400,
          "firmware",
        ],
        [
          "a firmware id as a product type",
          "PATCH",
          "/api/v1/devices/dev-001",
          {
            deviceId: "dev-001",
            productTypeId: s.fwA._id,
          },
          400,
          "productTypeId",
        ],
        ["body deviceId differs", "PATCH", "/api/v1/devices/dev-001", { deviceId: "dev-002" }, 400, "deviceId"],
        ["body deviceId differs in case", "PATCH", "/api/v1/devices/dev-001", { deviceId: "DEV-001" }, 400, "deviceId"],
        [
          "device type _id differs",
          "PATCH",
          `/api/v1/device_types/${s.dtId}`,
          {
            _id: `${s.dtId}x`,
            defaultFirmware: null,
          },
          400,
          "_id",
        ],
        [
          "unknown default firmware",
          "PATCH",
          `/api/v1/device_types/${s.dtId}`,
          {
            _id: s.dtId,
            defaultFirmware: s.treatmentIds[0],
          },
          400,
          "defaultFirmware",
        ],
        ["duplicate name, other case", "POST", "/api/v1/product_types", { name: "AUDIT TYPE" }, 409],
        ["duplicate name, padded", "POST", "/api/v1/product_types", { name: "  audit type\t" }, 409],
        ["blank name", "POST", "/api/v1/product_types", { name: " \t " }, 400, "name"],
        ["rename onto another type", "PATCH", `/api/v1/product_types/${s.ptId}`, {
          ...ptBody,
          name: "other TYPE",
        }, 409],
        [
          "product type _id differs",
          "PATCH",
          `/api/v1/product_types/${s.ptId}`,
          { ...ptBody, _id: s.pt2Id },
          400,
          "_id",
        ],
        [
          "a module of another type",
          "PATCH",
          `/api/v1/product_types/${s.ptId}`,
          {
            ...ptBody,
            modules: [m0, { ...m1, _id: foreignModule }],
          },
          400,
          "_id",
        ],
        [
          "the same module twice",
          "PATCH",
          `/api/v1/product_types/${s.ptId}`,
          {
            ...ptBody,
            modules: [m0, { ...m1, _id: m0._id }],
          },
          400,
          "_id",
        ],
        [
          "duplicate treatments in a module",
          "PATCH",
          `/api/v1/product_types/${s.ptId}`,
          {
            ...ptBody,
            modules: [m0, { ...m1, treatmentIds: [s.treatmentIds[1], s.treatmentIds[1]] }],
          },
          400,
          "treatmentIds",
        ],
        [
          "an unknown treatment in a module",
          "PATCH",
          `/api/v1/product_types/${s.ptId}`,
          {
            ...ptBody,
            modules: [m0, { ...m1, treatmentIds: [s.imageId] }],
          },
          400,
          "treatmentIds",
        ],
        [
          "a blank module name",
          "PATCH",
          `/api/v1/product_types/${s.ptId}`,
          {
            ...ptBody,
            modules: [m0, { ...m1, name: "  " }],
          },
          400,
          "name",
        ],
        [
          "a theme over 64 KiB",
          "PATCH",
          `/api/v1/product_types/${s.ptId}`,
          {
            ...ptBody,
            theme: { big: "x".repeat(70_000) },
          },
          400,
          "theme",
        ],
        ["delete a device's custom firmware", "DELETE", `/api/v1/device_firmwares/${s.fwA._id}`, null, 409],
        ["delete the default firmware", "DELETE", `/api/v1/device_firmwares/${s.fwB._id}`, null, 409],
      ];
      for (const [what, method, path, body, status, field] of cases) {
        const before = await snapshot(s);
        const r = await send(srv, method, path, { token: s.token, ...(body === null ? {} : { json: body }) });
        refused(f, `${method} ${path} [${what}]`, r, [status], { field });
        unchanged(f, `${method} ${path} [${what}]`, before, await snapshot(s));
      }
      // Method-override headers are ignored: a GET stays a GET.
      for (const header of ["x-http-method-override", "x-http-method", "x-method-override"]) {
        const before = await snapshot(s);
        const r = await send(srv, "GET", "/api/v1/devices/dev-005", {
          token: s.token,
          headers: { [header]: "DELETE" },
        });
        f.check(`GET devices/dev-005 with ${header}: DELETE`, () => assert.equal(r.status, 200, describe(r)));
        unchanged(f, `GET devices/dev-005 with ${header}: DELETE`, before, await snapshot(s));
      }
      // SQLite compares text up to a NUL in some places: a NUL-suffixed e-mail or password never signs in.
      for (
        const [email, password] of [[`${ADMIN_EMAIL}\u0000x`, ADMIN_PASSWORD], [
          ADMIN_EMAIL,
          `${ADMIN_PASSWORD}\u0000x`,
        ]]
      ) {
        const r = await send(srv, "POST", "/api/v1/login", { json: { email, password } });
        refused(f, `login ${JSON.stringify(email)} / ${JSON.stringify(password)}`, r, [401], {
          code: "invalid_credentials",
        });
      }
      // A refused check-in of an unknown device creates nothing.
      for (
        const body of [
          {},
          { versionInfo: null },
          { versionInfo: { app: 1, os: null, channels: [] } },
          { versionInfo: { app: null, os: null, channels: "a" } },
          { versionInfo: { app: null, os: null, channels: [] }, deviceId: "dev-other" },
          { versionInfo: { app: "x".repeat(10_000), os: null, channels: [] } },
        ]
      ) {
        const before = await snapshot(s);
        const label = `POST device/dev-fresh/checkin ${JSON.stringify(body).slice(0, 60)}`;
        const r = await send(srv, "POST", "/api/v1/device/dev-fresh/checkin", { token: DEVICE_API_KEY, json: body });
        refused(f, label, r, [400], { code: "invalid_request" });
        unchanged(f, label, before, await snapshot(s));
      }
      // JSON with a charset parameter or an upper-case type is still JSON.
      for (const type of ["application/json; charset=UTF-8", "Application/JSON"]) {
        const r = await send(srv, "PATCH", `/api/v1/device_types/${s.dtId}`, {
          token: s.token,
          body: JSON.stringify({ _id: s.dtId, defaultFirmware: s.fwB._id }),
          contentType: type,
        });
        f.check(`PATCH device_types with ${type}`, () => assert.equal(r.status, 200, describe(r)));
      }
      f.done();
    });

    await t.step("§6 firmware download: hostile Range and conditional headers", async () => {
      const f = new Findings();
      const url = "/api/v1/device/dev-001/firmware";
      const full = await send(srv, "GET", url, { token: DEVICE_API_KEY });
      assert.equal(full.status, 200, describe(full));
      const size = Number(full.headers.get("content-length"));
      const etag = full.headers.get("etag")!;
      const cases: [string, Record<string, string>, number[]][] = [
        ["bytes=abc", { range: "bytes=abc" }, [200, 416]],
        ["reversed", { range: "bytes=5-1" }, [200, 416]],
        ["several ranges", { range: "bytes=0-0,2-3" }, [200, 206]],
        ["bytes=-0", { range: "bytes=-0" }, [200, 416]],
        ["past the end", { range: `bytes=${size + 10}-` }, [416]],
        ["20 digits", { range: "bytes=99999999999999999999-" }, [200, 416]],
        ["huge end", { range: "bytes=0-99999999999999999999" }, [200, 206, 416]],
        ["huge suffix", { range: "bytes=-999999999" }, [200, 206]],
        ["negative", { range: "bytes=-1-2" }, [200, 416]],
        ["empty", { range: "" }, [200, 416]],
        // RFC 9110 §14.2: a server MUST ignore a Range with a unit it does not understand.
        ["unknown unit", { range: "items=0-1" }, [200]],
        ["garbage If-None-Match", { "if-none-match": '"nope", garbage, W/' }, [200]],
        ["If-None-Match *", { "if-none-match": "*" }, [304]],
        ["matching ETag", { "if-none-match": etag }, [304]],
        ["garbage If-Range", { range: "bytes=0-1", "if-range": "garbage" }, [200]],
        ["matching If-Range", { range: "bytes=0-1", "if-range": etag }, [206]],
      ];
      for (const [what, headers, statuses] of cases) {
        const r = await send(srv, "GET", url, { token: DEVICE_API_KEY, headers });
        const label = `GET ${url} [${what}]`;
        sane(f, label, r);
        f.check(label, () => assert.ok(statuses.includes(r.status), `expected ${statuses.join("/")}, got ${r.status}`));
        if (r.status === 416) {
          refused(f, label, r, [416], { code: "range_not_satisfiable" });
          f.check(label, () => assert.equal(r.headers.get("content-range"), `bytes */${size}`));
        }
        if (r.status === 206) {
          f.check(label, () => {
            const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(r.headers.get("content-range") ?? "");
            assert.ok(m, `Content-Range ${r.headers.get("content-range")}`);
            assert.equal(Number(m[3]), size);
            assert.equal(Number(r.headers.get("content-length")), Number(m[2]) - Number(m[1]) + 1);
          });
        }
        if (r.status === 200) f.check(label, () => assert.equal(Number(r.headers.get("content-length")), size));
      }
      f.done();
    });

    await t.step("§5/§7 hostile import files: 400 import_failed naming the table, nothing imported", async () => {
      const f = new Findings();
      const valid = `
        INSERT INTO treatments VALUES (1, 'Hostile import', 'c', 'u');
        INSERT INTO phases VALUES (1, 1, 0, 10);
        INSERT INTO channels VALUES (1, 1, 0, 1, 2, '+', 1, 1, 1);`;
      const cases: [string, string, string | null][] = [
        [
          "a view named treatments",
          `${IMPORT_SCHEMA.replace(/CREATE TABLE treatments[^;]*;/, "")}
          CREATE TABLE t0 (id INTEGER PRIMARY KEY, name TEXT NOT NULL, category TEXT, use TEXT);
          CREATE VIEW treatments AS SELECT * FROM t0;
          INSERT INTO t0 VALUES (1, 'From a view', NULL, NULL);`,
          "treatments",
        ],
        [
          "a trigger",
          `${IMPORT_SCHEMA}${valid}
          CREATE TRIGGER tr AFTER INSERT ON treatments BEGIN DELETE FROM phases; END;`,
          "treatments",
        ],
        [
          "a NULL name",
          `${
            IMPORT_SCHEMA.replace("name TEXT NOT NULL", "name TEXT")
          }${valid} INSERT INTO treatments VALUES (2, NULL, NULL, NULL);`,
          "treatments",
        ],
        ["a blank name", `${IMPORT_SCHEMA}${valid} INSERT INTO treatments VALUES (2, '  ', NULL, NULL);`, "treatments"],
        [
          "a name twice",
          `${IMPORT_SCHEMA}${valid} INSERT INTO treatments VALUES (2, ' Hostile import ', NULL, NULL);`,
          "treatments",
        ],
        ["text as a duration", `${IMPORT_SCHEMA}${valid} INSERT INTO phases VALUES (2, 1, 1, 'abc');`, "phases"],
        ["a negative duration", `${IMPORT_SCHEMA}${valid} INSERT INTO phases VALUES (2, 1, 1, -1);`, "phases"],
        [
          "an infinite current",
          `${IMPORT_SCHEMA}${valid}
          INSERT INTO channels VALUES (2, 1, 1, 9e999, 2, '+', 1, 1, 1);`,
          "channels",
        ],
        [
          "a blob as a frequency",
          `${IMPORT_SCHEMA}${valid}
          INSERT INTO channels VALUES (2, 1, 1, 1, X'00FF', '+', 1, 1, 1);`,
          "channels",
        ],
        ["a dangling treatment_id", `${IMPORT_SCHEMA}${valid} INSERT INTO phases VALUES (2, 99, 0, 1);`, "phases"],
        [
          "a dangling phase_id",
          `${IMPORT_SCHEMA}${valid}
          INSERT INTO channels VALUES (2, 99, 0, 1, 2, '+', 1, 1, 1);`,
          "channels",
        ],
        [
          "no channels table",
          `${IMPORT_SCHEMA.replace(/CREATE TABLE channels[^;]*;/, "")}
          INSERT INTO treatments VALUES (1, 'No channels', NULL, NULL);`,
          "channels",
        ],
        [
          "an image that is HTML",
          `${IMPORT_SCHEMA}${valid}
          INSERT INTO images VALUES (1, 1, 0, 'text/html', CAST('<script>alert(1)</script>' AS BLOB));`,
          "images",
        ],
        [
          "an image whose bytes are not its type",
          `${IMPORT_SCHEMA}${valid}
          INSERT INTO images VALUES (1, 1, 0, 'image/png', CAST('<svg onload=alert(1)>' AS BLOB));`,
          "images",
        ],
        [
          "a huge integer id",
          `${IMPORT_SCHEMA}${valid} INSERT INTO phases VALUES (2, 1, 9223372036854775807, 1);`,
          "phases",
        ],
      ];
      let n = 0;
      for (const [what, sql, table] of cases) {
        const path = `${s.tmp}/hostile-${n++}.sqlite3`;
        const db = new DatabaseSync(path);
        db.exec(sql);
        db.close();
        const before = await snapshot(s);
        const r = await send(srv, "POST", "/api/v1/treatments/import", {
          token: s.token,
          body: multipart("imp", [{ name: "file", filename: "hostile.sqlite3", data: await Deno.readFile(path) }]),
          contentType: "multipart/form-data; boundary=imp",
        });
        const label = `POST treatments/import [${what}]`;
        refused(f, label, r, [400], { code: "import_failed", field: table ?? undefined });
        unchanged(f, label, before, await snapshot(s));
      }
      // A truncated database: the first pages of a valid file.
      {
        const path = `${s.tmp}/truncated.sqlite3`;
        makeImportDb(path, generateTreatments(200, { phases: 3, channels: 2, namePrefix: "Truncated" }));
        const bytes = await Deno.readFile(path);
        const before = await snapshot(s);
        const r = await send(srv, "POST", "/api/v1/treatments/import", {
          token: s.token,
          body: multipart("imp", [{ name: "file", filename: "t.sqlite3", data: bytes.slice(0, 8192) }]),
          contentType: "multipart/form-data; boundary=imp",
        });
        refused(f, "POST treatments/import [truncated database]", r, [400], { code: "import_failed" });
        unchanged(f, "POST treatments/import [truncated database]", before, await snapshot(s));
      }
      f.done();
    });

    await t.step("§2/§5 hostile concurrency and aborted uploads: one winner, no 500, no stray file", async () => {
      const f = new Findings();
      const before = await snapshot(s);

      // The same firmware name uploaded six times at once: one 201, five 409.
      const race = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          send(srv, "POST", "/api/v1/device_firmwares", {
            token: s.token,
            body: multipart("race", [{ name: "file", filename: "race.xz", data: xzBytes(`race ${i}`) }]),
            contentType: "multipart/form-data; boundary=race",
          })),
      );
      race.forEach((r, i) => sane(f, `race upload ${i}`, r));
      f.check("race uploads", () => {
        assert.deepEqual(race.map((r) => r.status).sort(), [201, 409, 409, 409, 409, 409]);
      });
      const winner = race.find((r) => r.status === 201)?.json as { _id: string } | undefined;
      if (winner) {
        const r = await send(srv, "DELETE", `/api/v1/device_firmwares/${winner._id}`, { token: s.token });
        assert.equal(r.status, 204, describe(r));
      }

      // One product type name (in several cases) created six times at once: one 201, five 409.
      const names = ["Race type", "race type", "RACE TYPE", " Race Type ", "race TYPE", "Race type"];
      const created = await Promise.all(
        names.map((name) => send(srv, "POST", "/api/v1/product_types", { token: s.token, json: { name } })),
      );
      created.forEach((r, i) => sane(f, `race product type ${i}`, r));
      f.check("race product types", () => {
        assert.deepEqual(created.map((r) => r.status).sort(), [201, 409, 409, 409, 409, 409]);
      });
      const pt = created.find((r) => r.status === 201)?.json as { _id: string } | undefined;
      if (pt) {
        const r = await send(srv, "DELETE", `/api/v1/product_types/${pt._id}`, { token: s.token });
        assert.equal(r.status, 204, describe(r));
      }

      // A module removed while a device enables it: whatever the order, the device never keeps a missing module.
      const ptBase = jsonRoutes(s).find((r) => r.label === "PATCH product_types")!.base;
      for (let round = 0; round < 5; round++) {
        const body = await ptBase() as { modules: Json[] } & Record<string, Json>;
        const added = await send(srv, "PATCH", `/api/v1/product_types/${s.ptId}`, {
          token: s.token,
          json: { ...body, modules: [...body.modules, { name: `Temp ${round}`, isDefault: false, treatmentIds: [] }] },
        });
        assert.equal(added.status, 200, describe(added));
        const temp = (added.json as { modules: { _id: string; name: string }[] }).modules.find((m) =>
          m.name === `Temp ${round}`
        )!._id;
        const [device, removed] = await Promise.all([
          send(srv, "PATCH", "/api/v1/devices/dev-004", {
            token: s.token,
            json: { deviceId: "dev-004", productTypeId: s.ptId, moduleIds: [temp] },
          }),
          send(srv, "PATCH", `/api/v1/product_types/${s.ptId}`, { token: s.token, json: body }),
        ]);
        sane(f, `round ${round} device patch`, device);
        sane(f, `round ${round} module removal`, removed);
        const now = (await send(srv, "GET", "/api/v1/devices/dev-004", { token: s.token })).json as {
          moduleIds: string[];
        };
        f.check(`round ${round}`, () => assert.ok(!now.moduleIds.includes(temp), "the device kept a deleted module"));
      }
      await send(srv, "PATCH", "/api/v1/devices/dev-004", {
        token: s.token,
        json: { deviceId: "dev-004", productTypeId: null },
      });

      // Uploads aborted by the client mid-body leave nothing behind.
      for (
        const [path, name, head] of [
          ["/api/v1/device_firmwares", "aborted.xz", xzBytes("")],
          ["/api/v1/treatments/import", "aborted.sqlite3", new TextEncoder().encode("SQLite format 3\0")],
        ] as const
      ) {
        const controller = new AbortController();
        const te = new TextEncoder();
        let sent = 0;
        const body = new ReadableStream<Uint8Array>({
          start(c) {
            c.enqueue(te.encode(
              `--ab\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n\r\n`,
            ));
            c.enqueue(head);
          },
          async pull(c) {
            if (sent >= 256 * 1024) return await new Promise(() => {}); // stall: the client aborts
            c.enqueue(new Uint8Array(64 * 1024).fill(1));
            sent += 64 * 1024;
          },
        });
        const pending = fetch(`${srv.url}${path}`, {
          method: "POST",
          headers: { authorization: `Bearer ${s.token}`, "content-type": "multipart/form-data; boundary=ab" },
          body,
          signal: controller.signal,
        }).then((r) => r.body?.cancel(), () => {});
        await new Promise((r) => setTimeout(r, 500));
        controller.abort();
        await pending;
        let tmp: string[] = [];
        for (let i = 0; i < 50; i++) {
          tmp = await listFiles(`${srv.dataDir}/tmp`);
          if (tmp.length === 0) break;
          await new Promise((r) => setTimeout(r, 100));
        }
        f.check(
          `aborted upload to ${path}`,
          () => assert.deepEqual(tmp, [], "a temp file outlived the aborted upload"),
        );
      }

      // Apart from the device's moduleIds churn (set back above), nothing the races did remains.
      const after = await snapshot(s);
      f.check("after the races", () => {
        assert.deepEqual(after.lists["/api/v1/device_firmwares"], before.lists["/api/v1/device_firmwares"]);
        assert.deepEqual(after.lists["/api/v1/treatments"], before.lists["/api/v1/treatments"]);
        assert.deepEqual(after.files, before.files);
        assert.deepEqual(after.tmp, []);
      });
      f.done();
    });

    await t.step("§5 firmware names from a hostile client: base name kept exactly, safe download header", async () => {
      const f = new Findings();
      const names: [string, string][] = [
        // (A double quote is sent as %22 by browsers: the multipart header itself has no escape for it.)
        ["🦄 it's; name=evil (1).xz", "🦄 it's; name=evil (1).xz"],
        ["Prüfung-Größe.xz", "Prüfung-Größe.xz"],
        ["C:\\Users\\x\\win.xz", "win.xz"],
        ["../../../../etc/cron.d/evil.xz", "evil.xz"],
        ["%2e%2e%2fenc.xz", "%2e%2e%2fenc.xz"],
        [`${"n".repeat(250)}.xz`, `${"n".repeat(250)}.xz`],
      ];
      for (const [sentName, stored] of names) {
        const label = `upload ${JSON.stringify(sentName).slice(0, 60)}`;
        const r = await send(srv, "POST", "/api/v1/device_firmwares", {
          token: s.token,
          body: multipart("fn", [{ name: "file", filename: sentName, data: xzBytes(sentName) }]),
          contentType: "multipart/form-data; boundary=fn",
        });
        sane(f, label, r);
        if (r.status !== 201) {
          f.add(label, `refused: ${describe(r)}`);
          continue;
        }
        const fw = r.json as { _id: string; name: string };
        f.check(label, () => assert.equal(fw.name, stored, `stored as ${JSON.stringify(fw.name)}`));
        const file = await fetch(`${srv.url}/api/v1/device_firmwares/${fw._id}/file`, {
          headers: { authorization: `Bearer ${s.token}` },
        });
        await file.body?.cancel();
        f.check(`${label}: download`, () => {
          assert.equal(file.status, 200);
          const cd = file.headers.get("content-disposition") ?? "";
          assert.match(cd, /^attachment;/);
          const star = /filename\*=UTF-8''([^;\s]+)/.exec(cd);
          assert.ok(star, `no filename* in ${cd}`);
          assert.equal(decodeURIComponent(star[1]), stored, `downloaded as ${decodeURIComponent(star[1])}`);
          // The quoted fallback holds no quote, backslash or non-ASCII that could break the header.
          const plain = /filename="([^"]*)"/.exec(cd);
          assert.ok(plain, `no filename in ${cd}`);
          assert.doesNotMatch(plain[1], /["\\]|[^\x20-\x7e]/);
        });
        const del = await send(srv, "DELETE", `/api/v1/device_firmwares/${fw._id}`, { token: s.token });
        f.check(`${label}: delete`, () => assert.equal(del.status, 204, describe(del)));
      }
      const left = await listFiles(`${srv.dataDir}/firmwares`);
      const list = (await send(srv, "GET", "/api/v1/device_firmwares", { token: s.token })).json as { _id: string }[];
      f.check("firmware files match the list", () => assert.equal(left.length, list.length, left.join(", ")));
      f.done();
    });

    await t.step("§9 security headers on every kind of response, SPA routes, caching", async () => {
      const f = new Findings();
      const checkHeaders = (label: string, r: Res) =>
        f.check(label, () => {
          const csp = r.headers.get("content-security-policy");
          assert.ok(csp, `no Content-Security-Policy (${r.status})`);
          const directives = new Map(
            csp.split(";").map((d) => d.trim()).filter(Boolean).map((d) => {
              const [name, ...values] = d.split(/\s+/);
              return [name.toLowerCase(), values] as const;
            }),
          );
          assert.deepEqual(directives.get("frame-ancestors"), ["'none'"], `frame-ancestors in CSP "${csp}"`);
          const scriptSrc = directives.get("script-src") ?? directives.get("default-src");
          assert.ok(scriptSrc, `neither script-src nor default-src in CSP "${csp}"`);
          assert.ok(!scriptSrc.includes("'unsafe-inline'"), `script-src allows 'unsafe-inline': "${csp}"`);
          assert.equal(r.headers.get("x-content-type-options"), "nosniff");
          assert.equal(r.headers.get("referrer-policy"), "no-referrer");
        });

      const get = (path: string, o: SendOptions = {}) => send(srv, "GET", path, o);
      const jsonCases: [string, Res][] = [
        ["GET /api/v1/devices", await get("/api/v1/devices", { token: s.token })],
        ["GET /api/v1/devices (401)", await get("/api/v1/devices")],
        ["GET /api/v1/devices?page=-1 (400)", await get("/api/v1/devices?page=-1", { token: s.token })],
        [
          "POST /api/v1/login (401)",
          await send(srv, "POST", "/api/v1/login", { json: { email: "a@b.c", password: "x" } }),
        ],
        ["GET /healthz", await get("/healthz")],
        ["GET /api/v1/treatment_images/:id", await get(`/api/v1/treatment_images/${s.imageId}`, { token: s.token })],
        [
          "GET /api/v1/device_firmwares/:id/file",
          await get(`/api/v1/device_firmwares/${s.fwA._id}/file`, { token: s.token }),
        ],
        [
          "GET /api/v1/device/dev-001/firmware",
          await get("/api/v1/device/dev-001/firmware", { token: DEVICE_API_KEY }),
        ],
        ["GET /api/v1/device/dev-001/config", await get("/api/v1/device/dev-001/config", { token: DEVICE_API_KEY })],
        ["GET /api/v1/treatments/%ZZ", await get("/api/v1/treatments/%ZZ", { token: s.token })],
      ];
      for (const [label, r] of jsonCases) {
        sane(f, label, r);
        checkHeaders(label, r);
      }

      // Unknown /api/ paths stay JSON 404s, whatever the method, never the web app.
      for (
        const [method, path, token] of [
          ["GET", "/api/v1/nope", s.token],
          ["POST", "/api/v1/nope", s.token],
          ["GET", "/api/v1/devices/dev-001/nope", s.token],
          ["DELETE", "/api/v1/treatments", s.token],
          ["PUT", "/api/v1/devices/dev-001", s.token],
          ["POST", "/api/v1/devices", s.token],
          ["PATCH", `/api/v1/device_firmwares/${s.fwA._id}`, s.token],
          ["OPTIONS", "/api/v1/devices", s.token],
          ["GET", "/api/nope", undefined],
          ["GET", "/api/v2/devices", undefined],
          ["GET", "/api/v1/device/dev-001/nope", DEVICE_API_KEY],
        ] as const
      ) {
        const r = await send(srv, method, path, { token });
        refused(f, `${method} ${path}`, r, [404, 405], {});
        checkHeaders(`${method} ${path}`, r);
      }

      // No CORS grant for another origin: the API is same-origin only.
      for (const method of ["GET", "OPTIONS"]) {
        const r = await send(srv, method, "/api/v1/devices", {
          token: s.token,
          headers: { origin: "https://evil.example", "access-control-request-method": "GET" },
        });
        f.check(`${method} /api/v1/devices from another origin`, () => {
          const allow = r.headers.get("access-control-allow-origin");
          assert.ok(allow === null || allow === srv.url, `Access-Control-Allow-Origin: ${allow}`);
        });
      }

      // Every SPEC §2 route loads the app on a direct visit; index.html is not cached.
      const routes = [
        "/",
        "/devices",
        "/devices/dev-001",
        "/devices/x",
        "/treatments",
        `/treatments/${s.treatmentIds[0]}`,
        "/treatments/x",
        "/product_types",
        `/product_types/${s.ptId}`,
        "/product_types/x",
        "/device_firmwares",
      ];
      let index = "";
      for (const path of routes) {
        const r = await get(path);
        f.check(`GET ${path}`, () => {
          assert.equal(r.status, 200, describe(r));
          assert.match(r.headers.get("content-type") ?? "", /^text\/html/);
          assert.match(r.text, /<script[^>]+src=/i, "not the app's index.html");
          assert.doesNotMatch(r.text, /<script(?![^>]*\bsrc=)[^>]*>\s*\S/i, "inline script in index.html");
          assert.match(r.headers.get("cache-control") ?? "", /no-cache|no-store/, "index.html is cacheable");
        });
        checkHeaders(`GET ${path}`, r);
        index = r.text;
      }

      // Hashed assets are cached for a year; an unknown asset is a 404 with the same headers.
      const assets = [...index.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
      f.check("index.html references hashed assets", () => assert.ok(assets.length > 0, index.slice(0, 300)));
      for (const asset of assets) {
        const r = await get(asset);
        f.check(`GET ${asset}`, () => {
          assert.equal(r.status, 200);
          assert.match(r.headers.get("cache-control") ?? "", /max-age=31536000/);
        });
        checkHeaders(`GET ${asset}`, r);
      }
      for (const path of ["/assets/App-ZZZZZZZZ.js", "/assets/..%2F..%2Fdeno.json", "/assets/%00.js"]) {
        const r = await get(path);
        f.check(`GET ${path}`, () => {
          assert.equal(r.status, 404, describe(r));
          assert.doesNotMatch(r.headers.get("cache-control") ?? "", /max-age=31536000/);
        });
        checkHeaders(`GET ${path}`, r);
      }
      f.done();
    });

    await t.step(`fuzz: ${FUZZ_ITERATIONS} seeded mutations of each JSON route, never a 500`, async () => {
      const f = new Findings();
      const routes = jsonRoutes(s);
      for (const [ri, route] of routes.entries()) {
        const seed = FUZZ_SEED + ri;
        const rng = prng(seed);
        for (let i = 0; i < FUZZ_ITERATIONS; i++) {
          const base = await route.base();
          let text: string;
          if (rng.next() < 0.1) text = mutateText(rng, JSON.stringify(base));
          else {
            let body = mutate(rng, base);
            if (rng.next() < 0.3) body = mutate(rng, body);
            text = JSON.stringify(body);
          }
          const r = await sendText(s, route, text, "application/json");
          const label = `${route.label} seed=${seed} i=${i} body=${text.slice(0, 160)}`;
          sane(f, label, r);
          if (route.login) f.check(label, () => assert.ok([401, 429].includes(r.status), describe(r)));
          if (f.list.length > 40) break;
        }
      }
      f.done();
    });

    await t.step("the server logged no internal error", () => {
      const errors = srv.output().split("\n").filter((l) => /^ERROR |\bERROR\b.*Error:/.test(l));
      assert.deepEqual(errors.map((l) => l.slice(0, 300)), []);
    });
  } finally {
    await Deno.remove(s.tmp, { recursive: true }).catch(() => {});
  }
});

Deno.test("hostile helpers: seeded mutations reproduce and stay bounded", () => {
  const a = prng(7), b = prng(7);
  const base: Json = { name: "x", list: ["a", "b"], nested: { flag: true } };
  for (let i = 0; i < 200; i++) {
    const ma: string = JSON.stringify(mutate(a, base));
    const mb: string = JSON.stringify(mutate(b, base));
    assert.equal(ma, mb);
    assert.ok(ma.length < 40_000, `mutation ${i} is ${ma.length} bytes`);
  }
  assert.equal(JSON.stringify(nest(3)), "[[[[]]]]");
});

Deno.test("contract audit: a new password of fewer than 8 characters is refused, emoji count as one", async () => {
  await using srv = await startServer();
  const api = await srv.login();
  const f = new Findings();
  // Four characters, eight UTF-16 code units: CONTRACT §3 counts characters.
  for (const short of ["🦄🦄🦄🦄", "𝔸𝔹ℂ𝔻𝔼", "ab🦄🦄🦄"]) {
    const r = await send(srv, "POST", "/api/v1/change_password", {
      token: api.token,
      json: { old_password: ADMIN_PASSWORD, new_password: short },
    });
    refused(f, `new_password ${short} (${[...short].length} characters)`, r, [400], { field: "8" });
  }
  // The password is unchanged: the admin still signs in with it.
  await srv.login();
  f.done();
});
