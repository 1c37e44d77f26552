import type { Command } from "commander";
import { findFirmware } from "../../lib/lookup.ts";
import { formatDate, printFields, printJson } from "../../lib/output.ts";
import { readPassword } from "../../lib/prompt.ts";
import { globals, signedInClient } from "../../lib/session.ts";

export function registerFirmwareApprove(firmware: Command): void {
  firmware
    .command("approve")
    .description("approve a pending firmware for release (two-person release): your password is your signature")
    .argument("<id|name>", "the firmware's id or its file name")
    .addHelpText(
      "after",
      `
With RELEASE_APPROVALS=1 a new firmware is pending until an operator or admin other than its uploader approves it;
only then may it become a default, a device's firmware, a bulk change or a rollout. The approval is an electronic
signature with the meaning "approved for release", recorded in the audit trail with your name and the time.

The password is read from standard input (typed without echo on a terminal), never from an argument. An API token
cannot approve: sign in (deno task cli login) as yourself. A wrong password exits 1 (repeated ones are throttled as
sign-ins are); so do your own upload, and a firmware that is not pending.

Examples:
  $ deno task cli firmware approve firmware-1.4.2.xz
  $ printf '%s\\n' "$PASSWORD" | deno task cli --json firmware approve 3f2a9c...`,
    )
    .action(async (idOrName: string, _opts: unknown, cmd: Command) => {
      const g = globals(cmd);
      const api = await signedInClient(cmd);
      const found = await findFirmware(api, idOrName);
      const password = await readPassword();
      const approved = await api.approveFirmware(found._id, password);
      if (g.json) return printJson(approved);
      printFields([
        ["ID", approved._id],
        ["Name", approved.name],
        ["SHA-256", approved.sha256],
        ["Approved by", approved.approval.by ?? ""],
        ["Approved", approved.approval.at ? formatDate(approved.approval.at) : ""],
        ["Meaning", approved.approval.meaning ?? ""],
      ]);
    });
}
