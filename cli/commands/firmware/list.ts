import type { Command } from "commander";
import { formatBytes } from "../../../shared/format_bytes.ts";
import { managedDeviceType } from "../../lib/lookup.ts";
import { formatDate, printJson, printTable } from "../../lib/output.ts";
import { globals, signedInClient } from "../../lib/session.ts";

export function registerFirmwareList(firmware: Command): void {
  firmware
    .command("list")
    .description("list uploaded firmwares, newest first; * marks the default, with signing key and approval")
    .addHelpText(
      "after",
      `\nExamples:\n  $ deno task cli firmware list\n  $ deno task cli --json firmware list | jq -r '.[0].name'`,
    )
    .action(async (_opts: unknown, cmd: Command) => {
      const g = globals(cmd);
      const api = await signedInClient(cmd);
      const firmwares = await api.listFirmwares();
      if (g.json) return printJson(firmwares);
      if (firmwares.length === 0) return console.log("No firmware files present.");
      const deviceType = await managedDeviceType(api);
      printTable(
        ["DEFAULT", "ID", "NAME", "SIZE", "UPLOADED", "SIGNED BY", "APPROVAL", "SHA256"],
        firmwares.map((f) => [
          f._id === deviceType.defaultFirmware ? "*" : "",
          f._id,
          f.name,
          formatBytes(f.size),
          formatDate(f.createdAt),
          f.signature ? f.signature.keyName : "-",
          f.approval.state === "pending" ? "awaiting" : f.approval.state === "approved" ? `by ${f.approval.by}` : "-",
          f.sha256,
        ]),
      );
    });
}
