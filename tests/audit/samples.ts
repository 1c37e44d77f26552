/**
 * How the audit calls each route of the table (shared/routes): one sample per route name, so a route added to the
 * table cannot be left out. The audit's route lists (the 401 checks, the hostile bodies and the fuzz, the path
 * parameters, the uploads) are read from the table and these samples; a route that needs a kind of sample it
 * lacks fails the audit with its name (see coverage.test.ts).
 */
import * as z from "zod";
import { type Route, routeList, type RouteName } from "../../shared/routes/mod.ts";
import { SQLITE_MAGIC } from "../../shared/schemas/treatment.ts";
import { APPROVAL_MEANING, XZ_MAGIC } from "../../shared/schemas/firmware.ts";
import { freshPublicKeyPem } from "../../testing/release_keys.ts";
import { generateTreatments, makeImportDb } from "../../testing/import_db.ts";
import { ADMIN_PASSWORD } from "../../testing/server.ts";
import { type Json, multipart } from "../helpers/hostile.ts";
import { pathOf, type Res, type Seed, send, type SendOptions, xzBytes } from "./setup.ts";

export interface Sample {
  /** Operator and device routes: a request that, were its auth skipped, would read or change something. */
  probe?: { params?: Record<string, string>; body?: () => Promise<SendOptions> };
  /** Routes with a path parameter: the body sent along with an unknown or hostile id (none for bodiless routes). */
  byId?: {
    body?: (id: string) => Json;
    /** The route creates what it does not know (check-in): unknown ids are not 404, hostile ones name the field. */
    creates?: boolean;
  };
  /** JSON-body routes: where the hostile bodies and the fuzz go, and a valid body read from the current state. */
  json?: {
    params?: Record<string, string>;
    base: () => Promise<Json>;
    /** POST login: every refusal is 401 invalid_credentials, or 429 once throttled. */
    login?: boolean;
    /** A route whose valid-shaped refusals carry a fixed msg (change_password's wrong old password). */
    fixedMsg?: boolean;
    /** After a 2xx, the entity in which the sent path should read back the sent value. */
    echo?: (r: Res) => Promise<unknown>;
  };
  /** Multipart routes: a valid file, its magic bytes, and the status of a file whose content is wrong. */
  upload?: {
    name: string;
    data: () => Promise<Uint8Array<ArrayBuffer>>;
    magic: readonly number[];
    wrongContent: number;
  };
}

export function samplesFor(s: Seed): Record<RouteName, Sample> {
  const json = (value: unknown) => () => Promise.resolve({ json: value });
  const importFile = async (path: string, namePrefix: string) => {
    makeImportDb(path, generateTreatments(1, { phases: 1, channels: 1, namePrefix }));
    return await Deno.readFile(path);
  };
  const fwUpload = () =>
    Promise.resolve({
      body: multipart("audit", [{ name: "file", filename: "fw-auth.xz", data: xzBytes("auth") }]),
      contentType: "multipart/form-data; boundary=audit",
    });
  const importUpload = async () => ({
    body: multipart("audit", [{
      name: "file",
      filename: "auth.sqlite3",
      data: await importFile(`${s.tmp}/auth.sqlite3`, "AuthBypass"),
    }]),
    contentType: "multipart/form-data; boundary=audit",
  });
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
  const byDeviceId = { deviceId: "dev-004" };

  return {
    login: {
      json: {
        base: () => Promise.resolve({ email: "nobody@example.com", password: "not-the-password" }),
        login: true,
      },
    },
    changePassword: {
      probe: { body: json({ old_password: ADMIN_PASSWORD, new_password: "new-pass-123" }) },
      json: {
        base: () => Promise.resolve({ old_password: "wrong-password-0", new_password: "new-password-123" }),
        fixedMsg: true,
      },
    },
    listDevices: { probe: {} },
    getDevice: { probe: { params: { deviceId: "dev-001" } }, byId: {} },
    firmwareInEffect: { probe: { params: { deviceId: "dev-001" } }, byId: {} },
    patchDevice: {
      probe: { params: { deviceId: "dev-005" }, body: json({ deviceId: "dev-005", firmware: s.fwA._id }) },
      byId: { body: (id) => ({ deviceId: id, firmware: null }) },
      json: {
        params: { deviceId: "dev-002" },
        base: async () => ({
          deviceId: "dev-002",
          productTypeId: s.ptId,
          moduleIds: await nonDefaultModules(),
          firmware: s.fwA._id,
          additionalTreatmentIds: [s.treatmentIds[4]],
        }),
        echo: self,
      },
    },
    deleteDevice: { probe: { params: { deviceId: "dev-005" } }, byId: {} },
    devicesCsv: { probe: {} },
    overview: { probe: {} },
    bulkDevices: {
      probe: { body: json({ deviceIds: ["dev-005"], filter: null, set: { firmware: s.fwA._id } }) },
      json: {
        base: () =>
          Promise.resolve({
            deviceIds: ["dev-002", "dev-003"],
            filter: null,
            set: { productTypeId: s.ptId, firmware: s.fwA._id, additionalTreatmentIds: [s.treatmentIds[4]] },
          }),
      },
    },
    preauthorizeDevice: {
      probe: { body: json({ deviceId: "probe-pre-1" }) },
      json: { base: () => Promise.resolve({ deviceId: "audit-pre-1" }) },
    },
    preauthorizeDevices: {
      probe: { body: json({ deviceIds: ["probe-pre-2", "probe-pre-3"] }) },
      json: { base: () => Promise.resolve({ deviceIds: ["audit-pre-2", "audit-pre-3"] }) },
    },
    acceptDevice: { probe: { params: { deviceId: "dev-001" } }, byId: {} },
    rejectDevice: { probe: { params: { deviceId: "dev-001" } }, byId: {} },
    resetDeviceCredentials: { probe: { params: { deviceId: "dev-001" } }, byId: {} },
    deviceAdmission: { probe: {} },
    listDeviceTypes: { probe: {} },
    getDeviceType: { probe: { params: { id: s.dtId } }, byId: {} },
    deviceTypeReach: { probe: { params: { id: s.dtId } }, byId: {} },
    patchDeviceType: {
      probe: { params: { id: s.dtId }, body: json({ _id: s.dtId, defaultFirmware: null }) },
      byId: { body: (id) => ({ _id: id, defaultFirmware: null }) },
      json: {
        params: { id: s.dtId },
        base: () => Promise.resolve({ _id: s.dtId, defaultFirmware: s.fwB._id }),
        echo: self,
      },
    },
    listFirmwares: { probe: {} },
    uploadFirmware: {
      probe: { body: fwUpload },
      upload: {
        name: "new-fw.xz",
        data: () => Promise.resolve(xzBytes("new firmware")),
        magic: XZ_MAGIC,
        wrongContent: 415,
      },
    },
    putFirmware: {
      probe: {
        params: { name: "fw-auth-put.xz" },
        body: () => Promise.resolve({ body: xzBytes("auth put"), contentType: "application/octet-stream" }),
      },
      byId: { creates: true },
    },
    firmwareFile: { probe: { params: { id: s.fwA._id } }, byId: {} },
    deleteFirmware: { probe: { params: { id: s.fwA._id } }, byId: {} },
    listTreatments: { probe: {} },
    listTreatmentSummaries: { probe: {} },
    importTreatments: {
      probe: { body: importUpload },
      upload: {
        name: "new.sqlite3",
        data: () => importFile(`${s.tmp}/multipart.sqlite3`, "Multipart"),
        magic: SQLITE_MAGIC,
        wrongContent: 400,
      },
    },
    getTreatment: { probe: { params: { id: s.treatmentIds[0] } }, byId: {} },
    treatmentImage: { probe: { params: { id: s.imageId } }, byId: {} },
    listProductTypes: { probe: {} },
    createProductType: {
      probe: { body: json({ name: "Auth bypass" }) },
      json: { base: () => Promise.resolve({ name: "Audit created" }), echo: self },
    },
    getProductType: { probe: { params: { id: s.ptId } }, byId: {} },
    patchProductType: {
      probe: { params: { id: s.pt2Id }, body: json({ _id: s.pt2Id, name: "Renamed", modules: [] }) },
      byId: { body: (id) => ({ _id: id, name: "Renamed by path test", modules: [] }) },
      json: { params: { id: s.ptId }, base: currentPt, echo: self },
    },
    deleteProductType: { probe: { params: { id: s.pt2Id } }, byId: {} },
    deviceCheckin: {
      probe: { params: byDeviceId, body: json({ versionInfo: { app: "9.9.9", os: "hacked", channels: [] } }) },
      byId: { body: () => ({ versionInfo: { app: "1", os: "1", channels: [] } }), creates: true },
      json: {
        params: { deviceId: "dev-003" },
        base: () => Promise.resolve({ versionInfo: { app: "1.0.0", os: "linux", channels: ["a", "b"] } }),
        echo: async () => (await send(s.srv, "GET", "/api/v1/devices/dev-003", { token: s.token })).json,
      },
    },
    deviceEnroll: {
      probe: { params: byDeviceId, body: json({ versionInfo: { app: "9.9.9", os: "hacked", channels: [] } }) },
      // With DEVICE_AUTH=shared (the audit's server) enrolment is off: a well-formed request is 409 whatever the id.
      byId: { body: () => ({ versionInfo: { app: "1", os: "1", channels: [] } }), creates: true },
      json: {
        params: { deviceId: "dev-enrol" },
        base: () => Promise.resolve({ versionInfo: { app: "1.0.0", os: "linux", channels: ["a"] } }),
      },
    },
    deviceConfig: { probe: { params: byDeviceId }, byId: {} },
    deviceFirmware: { probe: { params: byDeviceId }, byId: {} },
    deviceFirmwareHead: { probe: { params: byDeviceId }, byId: {} },
    openApi: {},
    me: { probe: {} },
    listOperators: { probe: {} },
    createOperator: {
      probe: { body: json({ email: "probe@example.com", role: "viewer", password: "probe-pass-1" }) },
      json: {
        base: () => Promise.resolve({ email: "audit-new@example.com", role: "viewer", password: "audit-pass-1" }),
      },
    },
    patchOperator: {
      probe: { params: { id: s.viewerId }, body: json({ disabled: true }) },
      byId: { body: () => ({ role: "viewer" }) },
      json: { params: { id: s.viewerId }, base: () => Promise.resolve({ role: "viewer", disabled: false }) },
    },
    deviceStatus: {
      probe: { params: byDeviceId, body: json({ firmwareId: s.fwB._id, state: "failed", message: "probe" }) },
      byId: { body: () => ({ firmwareId: s.fwB._id, state: "installed" }) },
      json: {
        params: { deviceId: "dev-003" },
        base: () => Promise.resolve({ firmwareId: s.fwB._id, state: "installing", progress: 50, message: "ok" }),
        echo: async () => {
          const d = (await send(s.srv, "GET", "/api/v1/devices/dev-003", { token: s.token })).json as {
            update: Record<string, unknown>;
          };
          return {
            firmwareId: d.update.firmwareId,
            state: d.update.state,
            progress: d.update.progress,
            message: d.update.message,
          };
        },
      },
    },
    listRollouts: { probe: {} },
    createRollout: {
      probe: { body: json({ name: "Auth bypass", firmwareId: s.fwB._id, productTypeId: null }) },
      json: {
        base: () =>
          Promise.resolve({
            name: "Audit rollout",
            firmwareId: s.fwB._id,
            productTypeId: s.ptId,
            stages: [10, 100],
            failureThreshold: 5,
            autoAdvance: true,
          }),
        echo: self,
      },
    },
    getRollout: { probe: { params: { id: s.rolloutId } }, byId: {} },
    rolloutDevices: { probe: { params: { id: s.rolloutId } }, byId: {} },
    rolloutHistory: { probe: { params: { id: s.rolloutId } }, byId: {} },
    rolloutStages: { probe: { params: { id: s.rolloutId } }, byId: {} },
    rolloutTargets: { probe: {} },
    startRollout: { probe: { params: { id: s.rolloutId } }, byId: {} },
    pauseRollout: { probe: { params: { id: s.rolloutId } }, byId: {} },
    resumeRollout: { probe: { params: { id: s.rolloutId } }, byId: {} },
    advanceRollout: { probe: { params: { id: s.rolloutId } }, byId: {} },
    cancelRollout: { probe: { params: { id: s.rolloutId } }, byId: {} },
    promoteRollout: { probe: { params: { id: s.rolloutId } }, byId: {} },
    retryRollout: { probe: { params: { id: s.rolloutId } }, byId: {} },
    resetOperatorPassword: {
      probe: { params: { id: s.viewerId }, body: json({ password: "probe-pass-1" }) },
      byId: { body: () => ({ password: "probe-pass-1" }) },
      json: { params: { id: s.viewerId }, base: () => Promise.resolve({ password: "audit-viewer-1" }) },
    },
    listAudit: { probe: {} },
    auditCsv: { probe: {} },
    listApiTokens: { probe: {} },
    createApiToken: {
      probe: { body: json({ name: "Probe token", scopes: ["read"] }) },
      json: {
        base: () =>
          Promise.resolve({
            name: "Audit script",
            scopes: ["read", "devices:write"],
            expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
          }),
      },
    },
    revokeApiToken: { probe: { params: { id: s.apiTokenId } }, byId: {} },
    listSavedViews: { probe: {} },
    listReleaseKeys: { probe: {} },
    getReleaseKey: { probe: { params: { id: s.releaseKeyId } }, byId: {} },
    createReleaseKey: {
      probe: { body: json({ name: "Probe key", publicKey: freshPublicKeyPem() }) },
      json: {
        base: () =>
          Promise.resolve({ name: `Audit key ${crypto.randomUUID().slice(0, 8)}`, publicKey: freshPublicKeyPem() }),
      },
    },
    revokeReleaseKey: { probe: { params: { id: s.releaseKeyId } }, byId: {} },
    // fwA needs no approval (RELEASE_APPROVALS is off): every valid-shaped body is the same 409.
    approveFirmware: {
      probe: { params: { id: s.fwA._id }, body: json({ password: ADMIN_PASSWORD, meaning: APPROVAL_MEANING }) },
      byId: { body: () => ({ password: "wrong-password-0", meaning: APPROVAL_MEANING }) },
      json: {
        params: { id: s.fwA._id },
        base: () => Promise.resolve({ password: "wrong-password-0", meaning: APPROVAL_MEANING }),
        fixedMsg: true,
      },
    },
    createSavedView: {
      probe: { body: json({ name: "Probe view", query: { seen: "never" } }) },
      json: {
        base: () =>
          Promise.resolve({
            name: `Audit view ${crypto.randomUUID().slice(0, 8)}`,
            query: { productTypeId: s.ptId, firmware: "custom", update: "failed", sort: "app", order: "desc" },
            shared: false,
          }),
      },
    },
    patchSavedView: {
      probe: { params: { id: s.savedViewId }, body: json({ name: "Probe rename" }) },
      byId: { body: () => ({ shared: false }) },
      json: {
        params: { id: s.savedViewId },
        base: () => Promise.resolve({ name: "Audit view", query: { seen: "7d", q: "dev" }, shared: true }),
        echo: self,
      },
    },
    deleteSavedView: { probe: { params: { id: s.savedViewId } }, byId: {} },
    getPreferences: { probe: {} },
    patchPreferences: {
      probe: { body: json({ deviceColumns: ["deviceId", "app"] }) },
      json: { base: () => Promise.resolve({ deviceColumns: ["deviceId", "productType", "os"] }), echo: self },
    },
  };
}

// ---------------------------------------------------------------- what each part of the audit needs

/** Which sample part a route needs: every non-public route a probe, and so on. */
export function partsNeeded(route: Route): (keyof Sample)[] {
  const parts: (keyof Sample)[] = [];
  if (route.auth !== "public") parts.push("probe");
  if (route.params) parts.push("byId");
  if (route.body.kind === "json") parts.push("json");
  if (route.body.kind === "multipart") parts.push("upload");
  return parts;
}

function need<K extends keyof Sample>(samples: Record<RouteName, Sample>, route: Route, part: K) {
  const value = samples[route.name as RouteName]?.[part];
  if (!value) {
    throw new Error(
      `tests/audit/samples.ts: route ${route.name} (${route.method} ${route.path}) has no '${part}' sample`,
    );
  }
  return value as NonNullable<Sample[K]>;
}

/** Every operator and device route, with a request that would succeed were its auth skipped. */
export function authRoutes(s: Seed) {
  const samples = samplesFor(s);
  return routeList.filter((r) => r.auth !== "public").map((route) => {
    const probe = need(samples, route, "probe");
    return { route, auth: route.auth, method: route.method, path: pathOf(route, probe.params), body: probe.body };
  });
}

/** Every route with a path parameter, with the body to send along with an id. */
export function idRoutes(s: Seed) {
  const samples = samplesFor(s);
  return routeList.filter((r) => r.params).map((route) => ({ route, ...need(samples, route, "byId") }));
}

/** Every multipart route, with its field name from the table and a valid file. */
export function uploadRoutes(s: Seed) {
  const samples = samplesFor(s);
  return routeList.filter((r) => r.body.kind === "multipart").map((route) => ({
    route,
    path: pathOf(route),
    field: route.body.kind === "multipart" ? route.body.field : "",
    extension: route.body.kind === "multipart" ? route.body.fileExtension : "",
    ...need(samples, route, "upload"),
  }));
}

/** A JSON route with a valid base body and its field rules, for the per-field checks and the fuzz. */
export interface JsonRoute {
  label: string;
  route: Route;
  method: string;
  path: string;
  auth: Route["auth"];
  base: () => Promise<Json>;
  /** Dotted paths (array indices dropped) that may be null. */
  nullable: string[];
  /** Dotted paths that may be absent. */
  optional: string[];
  /** Dotted-path prefixes whose values may be anything (the theme). */
  free: string[];
  login?: boolean;
  fixedMsg?: boolean;
  echo?: (r: Res) => Promise<unknown>;
}

/** Every JSON-body route; the nullable, optional and free-form fields are read from its body schema. */
export function jsonRoutes(s: Seed): JsonRoute[] {
  const samples = samplesFor(s);
  return routeList.filter((r) => r.body.kind === "json").map((route) => {
    const { params, ...sample } = need(samples, route, "json");
    const path = pathOf(route, params);
    const schema = route.body.kind === "json" ? route.body.schema : z.never();
    return {
      label: `${route.method} ${path.slice("/api/v1/".length)}`,
      route,
      method: route.method,
      path,
      auth: route.auth,
      ...fieldRules(schema),
      ...sample,
    };
  });
}

/** The JSON route of a table route (its base body, for the steps that build on it). */
export function jsonRoute(s: Seed, route: Route): JsonRoute {
  return jsonRoutes(s).find((r) => r.route === route)!;
}

/** The dotted paths of a body schema that may be null, that may be absent, and under which anything goes. */
export function fieldRules(schema: z.ZodType): { nullable: string[]; optional: string[]; free: string[] } {
  const rules = { nullable: [] as string[], optional: [] as string[], free: [] as string[] };
  const walk = (t: z.ZodType, at: string) => {
    for (;;) {
      if (t instanceof z.ZodOptional || t instanceof z.ZodDefault) rules.optional.push(at);
      else if (t instanceof z.ZodNullable) rules.nullable.push(at);
      else break;
      t = t.unwrap() as z.ZodType;
    }
    const under = (key: string) => at ? `${at}.${key}` : key;
    if (t instanceof z.ZodObject) { for (const [k, v] of Object.entries(t.shape)) walk(v as z.ZodType, under(k)); }
    else if (t instanceof z.ZodArray) walk(t.element as z.ZodType, at);
    else if (t instanceof z.ZodRecord) rules.free.push(`${at}.`);
  };
  walk(schema, "");
  return rules;
}
