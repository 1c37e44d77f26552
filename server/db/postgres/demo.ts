import type { DemoData, DemoStore } from "../types/demo.ts";
import { checkinDevice } from "../stores/device_api.ts";
import { updateDevice } from "../stores/devices.ts";
import { createProductType, updateProductType } from "../stores/product_types.ts";
import { driveIn } from "./runner.ts";
import { type Sql, type Tx, write } from "./open.ts";
import { nextRevision } from "../runner.ts";
import { importIn } from "./treatments.ts";

async function seedDemo(tx: Tx, data: DemoData): Promise<void> {
  const { deviceType, firmwareId } = data.defaultFirmware;
  await tx`UPDATE device_types SET default_firmware = ${firmwareId}, revision = ${await driveIn(tx, nextRevision())}
    WHERE name = ${deviceType}`;

  await importIn(tx, data.treatments);
  const treatmentIds = new Map<string, string>();
  for (const t of data.treatments) {
    const [{ id }] = await tx`UPDATE treatments SET created_at = ${t.createdAt}, updated_at = ${t.updatedAt}
      WHERE name = ${t.name} RETURNING id`;
    treatmentIds.set(t.name, id);
  }
  const treatmentsNamed = (names: string[]) => names.map((n) => treatmentIds.get(n)!);

  const types = new Map<string, { id: string; modules: Map<string, string> }>();
  for (const pt of data.productTypes) {
    const id = await driveIn(tx, createProductType(pt.name, pt.theme));
    await driveIn(
      tx,
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
    const rows = await tx`SELECT id, name FROM modules WHERE product_type_id = ${id} ORDER BY position`;
    types.set(pt.name, { id, modules: new Map(rows.map((r) => [r.name as string, r.id as string])) });
  }

  for (const device of data.devices) {
    for (const c of device.checkins) await driveIn(tx, checkinDevice(device.deviceId, c.versionInfo, c.at));
    const settings = device.settings;
    if (!settings) continue;
    const type = settings.productType === null ? null : types.get(settings.productType)!;
    await driveIn(
      tx,
      updateDevice(device.deviceId, {
        productTypeId: type?.id ?? null,
        moduleIds: settings.modules.map((name) => type!.modules.get(name)!),
        additionalTreatmentIds: treatmentsNamed(settings.additionalTreatments),
        firmware: settings.firmware,
      }),
    );
    await tx`UPDATE devices SET updated_at = ${settings.updatedAt} WHERE device_id = ${device.deviceId}`;
  }
}

export function postgresDemo(sql: Sql): DemoStore {
  return {
    isEmpty: async () => {
      const [{ n }] = await sql`SELECT (SELECT count(*) FROM devices) + (SELECT count(*) FROM treatments)
        + (SELECT count(*) FROM product_types) + (SELECT count(*) FROM firmwares) AS n`;
      return Number(n) === 0;
    },
    seed: (data) => write(sql, (tx) => seedDemo(tx, data)),
  };
}
