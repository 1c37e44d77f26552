import type { DemoData, DemoStore } from "../types/demo.ts";
import { all, type Engine, nextRevision, one, type Q, run, storeOf, write } from "../runner.ts";
import { checkinDevice } from "./device_api.ts";
import { updateDevice } from "./devices.ts";
import { createProductType, updateProductType } from "./product_types.ts";
import { writeTreatments } from "./treatment_import.ts";

/** Whether the database holds nothing the demo would write over. */
function* demoIsEmpty(): Q<boolean> {
  const row = yield* one<{ n: number | string }>(
    `SELECT (SELECT count(*) FROM devices) + (SELECT count(*) FROM treatments)
      + (SELECT count(*) FROM product_types) + (SELECT count(*) FROM firmwares) AS n`,
  );
  return Number(row!.n) === 0;
}

/**
 * The demo data set in one write transaction: its treatments as an import writes them (no audit entry), then the
 * default firmware, the treatments' dates, product types with modules, devices with check-ins.
 */
function* seedDemo(data: DemoData): Q<void> {
  yield* writeTreatments(data.treatments, null);
  const { deviceType, firmwareId } = data.defaultFirmware;
  yield* run(
    "UPDATE device_types SET default_firmware = ?, revision = ? WHERE name = ?",
    firmwareId,
    yield* nextRevision(),
    deviceType,
  );

  const treatmentIds = new Map<string, string>();
  for (const t of data.treatments) {
    const { id } = (yield* one<{ id: string }>("SELECT id FROM treatments WHERE name = ?", t.name))!;
    yield* run("UPDATE treatments SET created_at = ?, updated_at = ? WHERE id = ?", t.createdAt, t.updatedAt, id);
    treatmentIds.set(t.name, id);
  }
  const treatmentsNamed = (names: string[]) => names.map((n) => treatmentIds.get(n)!);

  const types = new Map<string, { id: string; modules: Map<string, string> }>();
  for (const pt of data.productTypes) {
    const id = yield* createProductType(pt.name, pt.theme);
    yield* updateProductType(id, {
      name: pt.name,
      theme: pt.theme,
      modules: pt.modules.map((m) => ({
        name: m.name,
        isDefault: m.isDefault,
        treatmentIds: treatmentsNamed(m.treatments),
      })),
    });
    const rows = yield* all<{ id: string; name: string }>(
      "SELECT id, name FROM modules WHERE product_type_id = ? ORDER BY position",
      id,
    );
    types.set(pt.name, { id, modules: new Map(rows.map((r) => [r.name, r.id])) });
  }

  for (const device of data.devices) {
    for (const c of device.checkins) yield* checkinDevice(device.deviceId, c.versionInfo, c.at);
    const settings = device.settings;
    if (!settings) continue;
    const type = settings.productType === null ? null : types.get(settings.productType)!;
    yield* updateDevice(device.deviceId, {
      productTypeId: type?.id ?? null,
      moduleIds: settings.modules.map((name) => type!.modules.get(name)!),
      additionalTreatmentIds: treatmentsNamed(settings.additionalTreatments),
      firmware: settings.firmware,
    });
    yield* run("UPDATE devices SET updated_at = ? WHERE device_id = ?", settings.updatedAt, device.deviceId);
  }
}

export function demoStore(engine: Engine): DemoStore {
  return storeOf<DemoStore>(engine, {
    isEmpty: demoIsEmpty,
    seed: (data) => write(() => seedDemo(data)),
  });
}
