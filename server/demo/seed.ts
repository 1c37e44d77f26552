/**
 * DEMO=1 data (docs/REQUIREMENTS.md §1), added only to an empty database: product types with modules, ~50 treatments with
 * PNG illustrations, two firmwares (one the managed device type's default), ~300 devices that arrive through
 * the same check-in function as the device API, and two staged rollouts (one finished, one running: rollouts.ts).
 * Deterministic: every demo database looks the same, except which devices a rollout's stages hold (a device's bucket
 * hashes the rollout's id, made at random when the rollout is created).
 */
import type { VersionInfo } from "../../shared/schemas/device.ts";
import { deviceTypeName } from "../../shared/schemas/device_type.ts";
import type { Firmware } from "../../shared/schemas/firmware.ts";
import { maxChannels } from "../../shared/schemas/treatment.ts";
import type { AppContext } from "../context.ts";
import type { DemoData, DemoDevice } from "../db/stores.ts";
import { addFirmware } from "../firmware_storage.ts";
import { type Prng, prng } from "../../shared/prng.ts";
import { phasesFor, TREATMENTS } from "./catalogue.ts";
import { DEMO_FIRMWARES } from "./firmwares.ts";
import { seedRollouts } from "./rollouts.ts";
import { electrodePlacement, envelopeChart } from "./illustrations.ts";

export const DEMO_DEVICE_COUNT = 300;

/** With DEVICE_AUTH=token, a few new devices wait for an operator's admission (docs/REQUIREMENTS.md §11). */
export const DEMO_PENDING_DEVICES = [
  "JCB-NEW-00001",
  "JCB-NEW-00002",
  "JCB-NEW-00003",
  "JCB-NEW-00004",
  "JCB-NEW-00005",
];
const DAY = 86_400_000;

export async function seedDemo(ctx: AppContext): Promise<void> {
  const { demo, firmwares: firmwareRows } = ctx.stores;
  if (!(await demo.isEmpty())) {
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
      firmwares.push(await addFirmware(firmwareRows, ctx.files, fw.name, bytes));
    }
    const nowMs = Date.now();
    const data = demoData(ctx.config.PRODUCT, firmwares, nowMs);
    await demo.seed(data);
    const [stable, candidate] = firmwares;
    const rolloutsStarted = performance.now();
    const rollouts = await seedRollouts(ctx.stores, {
      product: ctx.config.PRODUCT,
      by: ctx.config.ADMIN_EMAIL || "release@example.com",
      stable,
      candidate,
      lastSeen: new Map(data.devices.map((d) => [d.deviceId, Date.parse(d.checkins.at(-1)!.at)])),
      nowMs,
    });
    const rolloutsMs = (performance.now() - rolloutsStarted).toFixed(0);
    if (ctx.config.DEVICE_AUTH === "token") {
      // Enrolled as the fleet enrols (manual admission whatever DEVICE_ADMISSION says): pending, no token.
      for (const [i, deviceId] of DEMO_PENDING_DEVICES.entries()) {
        await ctx.stores.deviceApi.enroll(
          deviceId,
          {
            app: "2.5.0",
            os: `jeecee-os 5.11.${i}`,
            channels: ["stim-a 1.3.0", "stim-b 1.3.0"],
          },
          "0".repeat(64),
          false,
        );
      }
    }
    const ms = (performance.now() - started).toFixed(0);
    ctx.log(
      `DEMO=1: added ${data.productTypes.length} product types, ${data.treatments.length} treatments, ` +
        `${firmwares.length} firmwares, ${data.devices.length} devices and 2 rollouts ` +
        `(${rollouts.reports} status reports, ${rolloutsMs} ms) in ${ms} ms` +
        (ctx.config.DEVICE_AUTH === "token" ? `, ${DEMO_PENDING_DEVICES.length} of them pending admission.` : "."),
    );
  } catch (err) {
    for (const f of firmwares) {
      await firmwareRows.remove(f._id).catch(() => {});
      await ctx.files.remove(f._id).catch(() => {});
    }
    throw err;
  }
}

/** The demo data as plain values; the rows get their ids when the store writes them. */
function demoData(product: string, firmwares: Firmware[], nowMs: number): DemoData {
  const rng = prng(20261122);
  const iso = (ms: number) => new Date(Math.min(ms, nowMs)).toISOString();

  const [stable, candidate] = firmwares;

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
  const treatments = specs.map((spec) => {
    const created = nowMs - rng.int(60, 180) * DAY;
    const updated = created + rng.int(0, 50) * DAY;
    return { ...spec, createdAt: iso(created), updatedAt: iso(updated) };
  });
  const names = new Set(TREATMENTS.map((spec) => spec.name));
  const byCategory = new Map<string, string[]>();
  for (const spec of TREATMENTS) byCategory.set(spec.category, [...byCategory.get(spec.category) ?? [], spec.name]);
  const category = (name: string) => byCategory.get(name) ?? [];
  const named = (...wanted: string[]) => wanted.filter((n) => names.has(n));

  const module = (name: string, isDefault: boolean, treatments: string[]) => ({
    name,
    isDefault,
    treatments: [...new Set(treatments)],
  });
  const productTypes: DemoData["productTypes"] = [
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
  const types = productTypes.map((pt) => ({
    name: pt.name,
    optional: pt.modules.filter((m) => !m.isDefault).map((m) => m.name),
  }));

  const allTreatments = [...names];
  const devices = Array.from(
    { length: DEMO_DEVICE_COUNT },
    (_, i) => demoDevice(rng, i, nowMs, { types, allTreatments, candidate: candidate._id }),
  );
  return {
    defaultFirmware: { deviceType: deviceTypeName(product), firmwareId: stable._id },
    treatments,
    productTypes,
    devices,
  };
}

const APP_VERSIONS = ["2.3.0", "2.3.4", "2.4.0", "2.4.1", "2.5.0-beta.2"];
const OS_VERSIONS = ["jeecee-os 5.10.112", "jeecee-os 5.10.140", "jeecee-os 6.1.21"];
const BATCHES = ["2401", "2405", "2410", "2502", "2507"];

function demoDevice(
  rng: Prng,
  i: number,
  nowMs: number,
  pool: { types: { name: string; optional: string[] }[]; allTreatments: string[]; candidate: string },
): DemoDevice {
  const deviceId = `JCB${BATCHES[i % BATCHES.length]}-${String(1000 + i * 7).padStart(5, "0")}`;
  const channels = rng.next() < 0.6 ? 2 : 4;
  const versionInfo = (): VersionInfo => ({
    app: rng.next() < 0.03 ? null : rng.pick(APP_VERSIONS),
    os: rng.pick(OS_VERSIONS),
    channels: Array.from({ length: channels }, (_, c) => `stim-${"abcd"[c]} ${rng.pick(["1.2.0", "1.2.3", "1.3.0"])}`),
  });
  // The first check-in creates the device; most devices check in again later, some recently.
  const created = nowMs - rng.int(20, 200) * DAY - rng.int(0, DAY);
  const checkins = [{ versionInfo: versionInfo(), at: new Date(created).toISOString() }];
  if (rng.next() < 0.85) {
    const last = nowMs - (rng.next() < 0.5 ? rng.int(0, 2 * DAY) : rng.int(0, 19 * DAY));
    checkins.push({ versionInfo: versionInfo(), at: new Date(last).toISOString() });
  }

  if (rng.next() < 0.25) return { deviceId, checkins }; // never configured by an operator
  const type = rng.next() < 0.9 ? rng.pick(pool.types) : null;
  const moduleIds = type ? type.optional.filter(() => rng.next() < 0.35) : [];
  const extra = rng.next() < 0.3
    ? [...new Set(Array.from({ length: rng.int(1, 3) }, () => rng.pick(pool.allTreatments)))]
    : [];
  const firmware = rng.next() < 0.06 ? pool.candidate : null;
  // An operator touched it somewhere between its creation and now.
  const touched = created + Math.floor((nowMs - created) * rng.next());
  return {
    deviceId,
    checkins,
    settings: {
      productType: type?.name ?? null,
      modules: moduleIds,
      additionalTreatments: extra,
      firmware,
      updatedAt: new Date(touched).toISOString(),
    },
  };
}
