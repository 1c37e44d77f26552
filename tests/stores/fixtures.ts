/** Helpers for the store conformance suite: they use the store interfaces only, never an engine. */
import assert from "node:assert/strict";
import type { VersionInfo } from "../../shared/schemas/device.ts";
import type { Firmware } from "../../shared/schemas/firmware.ts";
import type { Treatment } from "../../shared/schemas/treatment.ts";
import type { OpenStores, Stores } from "../../server/db/stores.ts";

export interface ConformanceOptions {
  /** Fresh stores on a new, empty database. */
  open(): Promise<OpenStores>;
  /** Another instance on the same database as `stores`: its own connection, as a second process has. */
  another(stores: OpenStores): Promise<OpenStores>;
  /** Runs SQL on the database behind the stores' back (as someone with the database's file or password could). */
  exec(stores: OpenStores, text: string): Promise<void>;
}

export const PRODUCT = "conformance";
export const MANAGED_TYPE = `jeecee_baby_${PRODUCT}`;
export const INFO: VersionInfo = { app: "1.0.0", os: "os 1", channels: ["ch 1"] };

/** Registers one Deno test on fresh stores, closed afterwards. */
export function storeTest(
  engine: string,
  options: ConformanceOptions,
  name: string,
  fn: (stores: OpenStores, t: Deno.TestContext) => Promise<void>,
) {
  Deno.test(`${engine} stores: ${name}`, async (t) => {
    const stores = await options.open();
    try {
      await fn(stores, t);
    } finally {
      await stores.close();
    }
  });
}

/** Asserts that a store call fails with this domain error kind and exactly this message. */
export async function rejectsWith(
  call: Promise<unknown>,
  kind: abstract new (...args: never[]) => Error,
  msg: string,
): Promise<void> {
  await assert.rejects(call, (err: unknown) => {
    assert.ok(err instanceof kind, `expected ${kind.name}, got ${err}`);
    assert.equal(err.message, msg);
    return true;
  });
}

const PHASES = JSON.stringify([
  {
    duration: 60,
    channels: [{ current: 10, frequency: 50, polarity: "biphasic", riseTime: 1, holdTime: 5, fallTime: 1 }],
  },
]);

/** Imports treatments with these names (no images) and answers their ids by name. */
export async function addTreatments(stores: Stores, names: string[]): Promise<Record<string, string>> {
  await stores.treatments.import(
    names.map((name) => ({ name, category: "cat", use: "use", phasesJson: PHASES, images: [] })),
  );
  return Object.fromEntries((await listTreatments(stores)).map((t) => [t.name, t._id]));
}

export async function listTreatments(stores: Stores): Promise<Treatment[]> {
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  for await (const chunk of stores.treatments.listJsonChunks()) chunks.push(chunk);
  return JSON.parse(new TextDecoder().decode(await new Blob(chunks).arrayBuffer()));
}

let firmwareCount = 0;

/** A firmware row (its file is not the row store's business). */
export function firmwareRow(name: string, createdAt = new Date().toISOString()): Firmware {
  firmwareCount++;
  return {
    _id: `fw${String(firmwareCount).padStart(6, "0")}${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`,
    name,
    size: 100 + firmwareCount,
    sha256: firmwareCount.toString(16).padStart(64, "0"),
    createdAt,
    signature: null,
    approval: { state: "not_required", by: null, at: null, meaning: null },
    uploadedBy: null,
  };
}

export async function addFirmware(stores: Stores, name: string): Promise<Firmware> {
  const firmware = firmwareRow(name);
  await stores.firmwares.insert(firmware);
  return firmware;
}

/** A product type with these modules: [name, isDefault, treatment ids]. Answers it as stored. */
export async function addProductType(stores: Stores, name: string, modules: [string, boolean, string[]][] = []) {
  const created = await stores.productTypes.create(name);
  return await stores.productTypes.update(created._id, {
    name,
    modules: modules.map(([moduleName, isDefault, treatmentIds]) => ({ name: moduleName, isDefault, treatmentIds })),
  });
}

/** A check-in, its last-seen time written (a check-in that changes nothing else leaves it to the next batch). */
export async function checkin(stores: Stores, deviceId: string, info: VersionInfo = INFO) {
  const config = await stores.deviceApi.checkin(deviceId, info, PRODUCT);
  await stores.deviceApi.flushSeen();
  return config;
}

export { tick } from "../../testing/clock.ts";
