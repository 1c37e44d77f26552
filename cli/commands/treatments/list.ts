import type { Command } from "commander";
import { maxChannels } from "../../../shared/schemas/treatment.ts";
import { formatDate, orDash, printJson, printTable } from "../../lib/output.ts";
import { globals, signedInClient } from "../../lib/session.ts";

export function registerTreatmentsList(treatments: Command): void {
  treatments
    .command("list")
    .description("list treatments ordered by name")
    .addHelpText(
      "after",
      `\nExamples:\n  $ deno task cli treatments list\n  $ deno task cli --json treatments list | jq length`,
    )
    .action(async (_opts: unknown, cmd: Command) => {
      const g = globals(cmd);
      const api = await signedInClient(cmd);
      const list = await api.listTreatments();
      if (g.json) return printJson(list);
      if (list.length === 0) return console.log("No treatments present.");
      printTable(
        ["NAME", "CHANNELS", "PHASES", "IMAGES", "CATEGORY", "UPDATED", "ID"],
        list.map((t) => [
          t.name,
          String(maxChannels(t.phases)),
          String(t.phases.length),
          String(t.images.length),
          orDash(t.category),
          formatDate(t.updatedAt),
          t._id,
        ]),
      );
      console.log(`${list.length} treatment${list.length === 1 ? "" : "s"}.`);
    });
}
