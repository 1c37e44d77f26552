/**
 * DEMO=1 data (CONTRACT §1), added only to an empty database: product types with modules, ~50 treatments with
 * PNG illustrations, two firmwares (one the managed device type's default) and ~300 devices that arrive through
 * the same check-in function as the device API. Deterministic: every demo database looks the same.
 */
import { deviceTypeName } from "../../shared/schemas/device_type.ts";
import type { Firmware } from "../../shared/schemas/firmware.ts";
import type { ModuleInput, Theme } from "../../shared/schemas/product_type.ts";
import { maxChannels } from "../../shared/schemas/treatment.ts";
import type { AppContext } from "../context.ts";
import { checkinDevice } from "../db/device_checkin.ts";
import { updateDevice } from "../db/devices.ts";
import { addFirmware, deleteFirmwareRow, firmwarePath } from "../db/firmwares.ts";
import { type Db, sql, transaction } from "../db/mod.ts";
import { createProductType, updateProductType } from "../db/product_types.ts";
import { applyImport } from "../db/treatments.ts";
import { type Prng, prng } from "../../testing/prng.ts";
import { phasesFor, TREATMENTS } from "./catalogue.ts";
import { DEMO_FIRMWARES } from "./firmwares.ts";
import { electrodePlacement, envelopeChart } from "./illustrations.ts";

export const DEMO_DEVICE_COUNT = 300;
const DAY = 86_400_000;

export function isDatabaseEmpty(db: Db): boolean {
  const row = sql(
    db,
    `SELECT (SELECT count(*) FROM devices) + (SELECT count(*) FROM treatments)
          + (SELECT count(*) FROM product_types) + (SELECT count(*) FROM firmwares) AS n`,
  ).get() as { n: number };
  return row.n === 0;
}

export async function seedDemo(ctx: AppContext): Promise<void> {
  if (!isDatabaseEmpty(ctx.db)) {
    ctx.log("DEMO=1: the database already holds data, so no demo data was added.");
    return;
  }
  const started = performance.now();
  // Firmwares go through the upload's own storage path (file in place, then row), so they are committed
  // before the rest; if the one transaction for everything else fails, they are removed again.
  const firmwares: Firmware[] = [];
  try {
    for (const fw of DEMO_FIRMWARES) {
      const bytes = Uint8Array.from(atob(fw.base64), (ch) => ch.charCodeAt(0));
      firmwares.push(await addFirmware(ctx.db, ctx.paths, fw.name, bytes));
    }
    const counts = transaction(ctx.db, () => insertDemo(ctx.db, ctx.config.PRODUCT, firmwares, Date.now()));
    const ms = (performance.now() - started).toFixed(0);
    ctx.log(
      `DEMO=1: added ${counts.productTypes} product types, ${counts.treatments} treatments, ` +
        `${firmwares.length} firmwares and ${counts.devices} devices in ${ms} ms.`,
    );
  } catch (err) {
    for (const f of firmwares) {
      deleteFirmwareRow(ctx.db, f._id);
      await Deno.remove(firmwarePath(ctx.paths, f._id)).catch(() => {});
    }
    throw err;
  }
}

function insertDemo(db: Db, product: string, firmwares: Firmware[], nowMs: number) {
  const rng = prng(20261122);
  const iso = (ms: number) => new Date(Math.min(ms, nowMs)).toISOString();

  const [stable, candidate] = firmwares;
  sql(db, "UPDATE device_types SET default_firmware = ? WHERE name = ?").run(stable._id, deviceTypeName(product));

  // Treatments through the import's own write path, then spread over the past months for a lived-in look.
  const specs = TREATMENTS.map((spec, i) => {
    const phases = phasesFor(spec, rng);
    const images = [envelopeChart(phases)];
    if (i % 3 !== 2) images.push(electrodePlacement(spec.area, maxChannels(phases)));
    return {
      name: spec.name,
      category: spec.category,
      use: spec.use,
      phasesJson: JSON.stringify(phases),
      images: images.map((data) => ({ mimeType: "image/png", data })),
    };
  });
  applyImport(db, specs);
  const treatmentIds = new Map<string, string>();
  const byCategory = new Map<string, string[]>();
  for (const spec of TREATMENTS) {
    const { id } = sql(db, "SELECT id FROM treatments WHERE name = ?").get(spec.name) as { id: string };
    const created = nowMs - rng.int(60, 180) * DAY;
    const updated = created + rng.int(0, 50) * DAY;
    sql(db, "UPDATE treatments SET created_at = ?, updated_at = ? WHERE id = ?").run(iso(created), iso(updated), id);
    treatmentIds.set(spec.name, id);
    byCategory.set(spec.category, [...byCategory.get(spec.category) ?? [], id]);
  }
  const category = (name: string) => byCategory.get(name) ?? [];
  const named = (...names: string[]) => names.map((n) => treatmentIds.get(n)!).filter(Boolean);

  const module = (name: string, isDefault: boolean, ids: string[]): ModuleInput => ({
    name,
    isDefault,
    treatmentIds: [...new Set(ids)],
  });
  const productTypes: { name: string; theme: Theme; modules: ModuleInput[] }[] = [
    {
      name: "JeeCee Baby Home",
      theme: { primaryColor: "#078686", accentColor: "#f4a7b9", logo: "baby-home", darkMode: false },
      modules: [
        module("Pregnancy & labour", true, category("Pregnancy & labour")),
        module("Pelvic floor", true, category("Pelvic floor").slice(0, 3)),
        module("Pain relief", false, category("Pain relief").slice(0, 7)),
        module("Recovery & massage", false, category("Recovery & massage")),
      ],
    },
    {
      name: "JeeCee Baby Clinic",
      theme: { primaryColor: "#055f5f", accentColor: "#ffffff", logo: "baby-clinic", darkMode: false },
      modules: [
        module("Pelvic floor therapy", true, category("Pelvic floor")),
        module("Rehabilitation", true, category("Rehabilitation")),
        module("Circulation", false, category("Circulation")),
        module("Pain relief", false, category("Pain relief")),
        module("Postnatal", false, named("Diastasis recti – postnatal rehab", "Pelvic floor – postnatal recovery")),
      ],
    },
    {
      name: "JeeCee Sport",
      theme: { primaryColor: "#0b5394", accentColor: "#f1c232", logo: "sport", darkMode: true },
      modules: [
        module("Strength", true, category("Muscle strengthening")),
        module("Performance", false, category("Sports")),
        module("Recovery", false, category("Recovery & massage")),
        module(
          "Sports injuries",
          false,
          named("Knee pain – conventional TENS", "Tennis elbow – TENS", "Calf strengthening"),
        ),
      ],
    },
    {
      name: "JeeCee Pain Relief",
      theme: { primaryColor: "#078686", accentColor: "#e06666", logo: "pain", darkMode: false },
      modules: [
        module("TENS essentials", true, category("Pain relief").slice(0, 6)),
        module("Chronic pain", false, category("Pain relief").slice(6)),
      ],
    },
    { name: "Prototype (no modules)", theme: { primaryColor: "#666666" }, modules: [] },
  ];
  const types = productTypes.map((pt) => {
    const id = createProductType(db, pt.name, pt.theme);
    updateProductType(db, id, pt);
    const modules = sql(db, "SELECT id, is_default FROM modules WHERE product_type_id = ? ORDER BY position").all(
      id,
    ) as {
      id: string;
      is_default: number;
    }[];
    return { id, optional: modules.filter((m) => m.is_default === 0).map((m) => m.id) };
  });

  const allTreatments = [...treatmentIds.values()];
  for (let i = 0; i < DEMO_DEVICE_COUNT; i++) {
    seedDevice(db, rng, i, nowMs, { types, allTreatments, candidate: candidate._id });
  }
  return { productTypes: types.length, treatments: treatmentIds.size, devices: DEMO_DEVICE_COUNT };
}

const APP_VERSIONS = ["2.3.0", "2.3.4", "2.4.0", "2.4.1", "2.5.0-beta.2"];
const OS_VERSIONS = ["jeecee-os 5.10.112", "jeecee-os 5.10.140", "jeecee-os 6.1.21"];
const BATCHES = ["2401", "2405", "2410", "2502", "2507"];

function seedDevice(
  db: Db,
  rng: Prng,
  i: number,
  nowMs: number,
  pool: { types: { id: string; optional: string[] }[]; allTreatments: string[]; candidate: string },
) {
  const deviceId = `JCB${BATCHES[i % BATCHES.length]}-${String(1000 + i * 7).padStart(5, "0")}`;
  const channels = rng.next() < 0.6 ? 2 : 4;
  const versionInfo = () => ({
    app: rng.next() < 0.03 ? null : rng.pick(APP_VERSIONS),
    os: rng.pick(OS_VERSIONS),
    channels: Array.from({ length: channels }, (_, c) => `stim-${"abcd"[c]} ${rng.pick(["1.2.0", "1.2.3", "1.3.0"])}`),
  });
  // The first check-in creates the device; most devices check in again later, some recently.
  const created = nowMs - rng.int(20, 200) * DAY - rng.int(0, DAY);
  checkinDevice(db, deviceId, versionInfo(), new Date(created).toISOString());
  let last = created;
  if (rng.next() < 0.85) {
    last = nowMs - (rng.next() < 0.5 ? rng.int(0, 2 * DAY) : rng.int(0, 19 * DAY));
    checkinDevice(db, deviceId, versionInfo(), new Date(last).toISOString());
  }

  if (rng.next() < 0.25) return; // never configured by an operator
  const type = rng.next() < 0.9 ? rng.pick(pool.types) : null;
  const moduleIds = type ? type.optional.filter(() => rng.next() < 0.35) : [];
  const extra = rng.next() < 0.3
    ? [...new Set(Array.from({ length: rng.int(1, 3) }, () => rng.pick(pool.allTreatments)))]
    : [];
  updateDevice(db, deviceId, {
    productTypeId: type?.id ?? null,
    moduleIds,
    additionalTreatmentIds: extra,
    firmware: rng.next() < 0.06 ? pool.candidate : null,
  });
  // An operator touched it somewhere between its creation and now.
  const touched = created + Math.floor((nowMs - created) * rng.next());
  sql(db, "UPDATE devices SET updated_at = ? WHERE device_id = ?").run(new Date(touched).toISOString(), deviceId);
}
