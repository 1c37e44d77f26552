import type { Command } from "commander";
import { findFirmware, managedDeviceType } from "../../lib/lookup.ts";
import { printJson } from "../../lib/output.ts";
import { globals, signedInClient } from "../../lib/session.ts";

export function registerFirmwareSetDefault(firmware: Command): void {
  firmware
    .command("set-default")
    .description("make a firmware the default of the managed device type (devices updating get it)")
    .argument("<id|name>", "the firmware's id or its file name")
    .addHelpText(
      "after",
      `
With --json it prints the device type as the server answered the change.

Example:
  $ deno task cli firmware set-default firmware-1.4.2.xz`,
    )
    .action(async (idOrName: string, _opts: unknown, cmd: Command) => {
      const g = globals(cmd);
      const api = await signedInClient(cmd);
      const firmware = await findFirmware(api, idOrName);
      const deviceType = await managedDeviceType(api);
      const updated = await api.patchDeviceType(
        { _id: deviceType._id, defaultFirmware: firmware._id },
        { ifMatch: deviceType.etag },
      );
      if (g.json) printJson(updated);
      else console.log(`Default firmware of ${updated.name} is now ${firmware.name} (${firmware._id}).`);
    });
}
