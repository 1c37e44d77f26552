import type { Command } from "commander";
import { managedDeviceType } from "../../lib/lookup.ts";
import { printJson } from "../../lib/output.ts";
import { globals, signedInClient } from "../../lib/session.ts";

export function registerFirmwareUnsetDefault(firmware: Command): void {
  firmware
    .command("unset-default")
    .description("remove the default firmware of the managed device type")
    .addHelpText(
      "after",
      `
With --json it prints the device type as the server answered the change.

Example:
  $ deno task cli firmware unset-default`,
    )
    .action(async (_opts: unknown, cmd: Command) => {
      const g = globals(cmd);
      const api = await signedInClient(cmd);
      const deviceType = await managedDeviceType(api);
      const updated = await api.patchDeviceType({ _id: deviceType._id, defaultFirmware: null }, {
        ifMatch: deviceType.etag,
      });
      if (g.json) printJson(updated);
      else console.log(`${updated.name} has no default firmware now.`);
    });
}
