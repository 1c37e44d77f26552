import type { DemoData, DemoStore } from "../types/demo.ts";
import { checkinDevice } from "../stores/device_api.ts";
import { updateDevice } from "../stores/devices.ts";
import { createProductType, updateProductType } from "../stores/product_types.ts";
import { drive } from "./runner.ts";
import { type Db, sql, transaction } from "./open.ts";
import { nextRevision } from "../runner.ts";
import { writeTreatments } from "./treatments.ts";

function seedDemo(db: Db, data: DemoData): void {
  const { deviceType, firmwareId } = data.defaultFirmware;
  sql(db, "UPDATE device_types SET default_firmware = ?, revision = ? WHERE name = ?")
    .run(firmwareId, drive(db, nextRevision()), deviceType);

  writeTreatments(db, data.treatments);
  const treatmentIds = new Map<string, string>();
  for (const t of data.treatments) {
    const { id } = sql(db, "SELECT id FROM treatments WHERE name = ?").get(t.name) as { id: string };
    sql(db, "UPDATE treatments SET created_at = ?, updated_at = ? WHERE id = ?").run(t.createdAt, t.updatedAt, id);
    treatmentIds.set(t.name, id);
  }
  const treatmentsNamed = (names: string[]) => names.map((n) => treatmentIds.get(n)!);

  const types = new Map<string, { id: string; modules: Map<string, string> }>();
  for (const pt of data.productTypes) {
    const id = drive(db, createProductType(pt.name, pt.theme));
    drive(
      db,
      updateProductType(id, {
        name: pt.name,
        theme: pt.theme,
        modules: pt.modules.map((m) => ({
          name: m.name,
          isDefault: m.isDefault,
          treatmentIds: treatmentsNamed(m.treatments),
        })),
      }),
    );
    const rows = sql(db, "SELECT id, name FROM modules WHERE product_type_id = ? ORDER BY position").all(id) as {
      id: string;
      name: string;
    }[];
    types.set(pt.name, { id, modules: new Map(rows.map((r) => [r.name, r.id])) });
  }

  for (const device of data.devices) {
    for (const c of device.checkins) drive(db, checkinDevice(device.deviceId, c.versionInfo, c.at));
    const settings = device.settings;
    if (!settings) continue;
    const type = settings.productType === null ? null : types.get(settings.productType)!;
    drive(
      db,
      updateDevice(device.deviceId, {
        productTypeId: type?.id ?? null,
        moduleIds: settings.modules.map((name) => type!.modules.get(name)!),
        additionalTreatmentIds: treatmentsNamed(settings.additionalTreatments),
        firmware: settings.firmware,
      }),
    );
    sql(db, "UPDATE devices SET updated_at = ? WHERE device_id = ?").run(settings.updatedAt, device.deviceId);
  }
}

export function sqliteDemo(db: Db): DemoStore {
  // Async only in name: each call runs to its end when made (a transaction never spans an await).
  return {
    // deno-lint-ignore require-await
    isEmpty: async () => {
      const row = sql(
        db,
        `SELECT (SELECT count(*) FROM devices) + (SELECT count(*) FROM treatments)
              + (SELECT count(*) FROM product_types) + (SELECT count(*) FROM firmwares) AS n`,
      ).get() as { n: number };
      return row.n === 0;
    },
    // deno-lint-ignore require-await
    seed: async (data) => transaction(db, () => seedDemo(db, data)),
  };
}
