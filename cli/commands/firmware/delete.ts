import type { Command } from "commander";
import { findFirmware } from "../../lib/lookup.ts";
import { printJson } from "../../lib/output.ts";
import { globals, signedInClient } from "../../lib/session.ts";

export function registerFirmwareDelete(firmware: Command): void {
  firmware
    .command("delete")
    .description("delete a firmware (refused while it is a default or a device's custom firmware)")
    .argument("<id|name>", "the firmware's id or its file name")
    .addHelpText(
      "after",
      `
With --json it prints the deleted firmware as the server listed it (the DELETE itself answers no body).

Examples:
  $ deno task cli firmware delete firmware-1.4.1.xz
  $ deno task cli firmware delete 3f2a9c...`,
    )
    .action(async (idOrName: string, _opts: unknown, cmd: Command) => {
      const g = globals(cmd);
      const api = await signedInClient(cmd);
      const firmware = await findFirmware(api, idOrName);
      await api.deleteFirmware(firmware._id);
      if (g.json) printJson(firmware);
      else console.log(`Deleted firmware ${firmware.name} (${firmware._id}).`);
    });
}
