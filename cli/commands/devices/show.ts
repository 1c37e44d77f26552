import type { Command } from "commander";
import type { FirmwareInEffect } from "../../../shared/schemas/device.ts";
import { formatDate, orDash, printFields, printJson } from "../../lib/output.ts";
import { globals, signedInClient } from "../../lib/session.ts";

export function registerDevicesShow(devices: Command): void {
  devices
    .command("show")
    .description("show one device")
    .argument("<deviceId>", "the device's own id")
    .addHelpText(
      "after",
      `\nExamples:\n  $ deno task cli devices show JB-000123\n  $ deno task cli --json devices show JB-000123 | jq .firmware`,
    )
    .action(async (deviceId: string, _opts: unknown, cmd: Command) => {
      const g = globals(cmd);
      const api = await signedInClient(cmd);
      const device = await api.getDevice(deviceId);
      if (g.json) return printJson(device);
      const productType = device.productTypeId ? await api.getProductType(device.productTypeId) : null;
      const moduleNames = new Map(productType?.modules.map((m) => [m._id, m.name]) ?? []);
      const treatmentNames = new Map(
        device.additionalTreatmentIds.length ? (await api.listTreatments()).map((t) => [t._id, t.name]) : [],
      );
      const firmware = device.firmware ? (await api.listFirmwares()).find((f) => f._id === device.firmware) : null;
      const inEffect = await api.firmwareInEffect(deviceId);
      printFields([
        ["Device ID", device.deviceId],
        ["Product type", productType ? `${productType.name} (${productType._id})` : orDash(device.productTypeId)],
        ["Enabled modules", device.moduleIds.map((id) => moduleNames.get(id) ?? id).join(", ") || "-"],
        [
          "Additional treatments",
          device.additionalTreatmentIds.map((id) => treatmentNames.get(id) ?? id).join(", ") || "-",
        ],
        ["Custom firmware", firmware ? `${firmware.name} (${firmware._id})` : orDash(device.firmware)],
        ["Firmware in effect", firmwareInEffectText(inEffect)],
        ["Last logged in", formatDate(device.lastLoggedIn)],
        ["Admission", device.admission],
        ["Credentials issued", formatDate(device.credentialsIssuedAt)],
        ["Version app", orDash(device.versionInfo?.app)],
        ["Version OS", orDash(device.versionInfo?.os)],
        ["Version channels", device.versionInfo?.channels.join(" / ") || "-"],
        [
          "Attributes",
          Object.entries(device.attributes ?? {}).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}=${v}`)
            .join(", ") || "-",
        ],
        ["Created", formatDate(device.createdAt)],
        ["Updated", formatDate(device.updatedAt)],
      ]);
    });
}

/** "fw-2.xz, from rollout v2 (3f2a...)": the firmware the device's configuration names now, and why. */
export function firmwareInEffectText(f: FirmwareInEffect): string {
  if (f.firmwareId === null) return "none (no custom firmware, no rollout, no default)";
  const why = f.source === "custom"
    ? "its custom firmware"
    : f.source === "rollout"
    ? `from rollout ${f.rolloutName} (${f.rolloutId})`
    : "the device type's default";
  return `${f.firmwareName} (${f.firmwareId}), ${why}`;
}
