import type { Command } from "commander";
import { TREATMENT_IMPORT_EXTENSION } from "../../../shared/schemas/treatment.ts";
import { SQLITE_MAGIC } from "../../../shared/schemas/treatment.ts";
import { checkedUploadSource } from "../../lib/local_file.ts";
import { printJson } from "../../lib/output.ts";
import { progressBar } from "../../lib/progress.ts";
import { globals, signedInClient } from "../../lib/session.ts";

export function registerTreatmentsImport(treatments: Command): void {
  treatments
    .command("import")
    .description("import treatments from a .sqlite3 file; a treatment with an existing name is overwritten")
    .argument("<file>", "the import database; its name must end in .sqlite3")
    .addHelpText(
      "after",
      `
All or nothing: a file with any problem changes nothing and the server's message names the table and row.

Examples:
  $ deno task cli treatments import treatments-2026-11.sqlite3
  $ deno task cli --json treatments import treatments-2026-11.sqlite3 | jq .created`,
    )
    .action(async (file: string, _opts: unknown, cmd: Command) => {
      const g = globals(cmd);
      const source = await checkedUploadSource(file, {
        extension: TREATMENT_IMPORT_EXTENSION,
        magic: SQLITE_MAGIC,
        kind: "an SQLite database",
      });
      const api = await signedInClient(cmd);
      const bar = progressBar(g, `Importing ${file.split("/").pop()}`, source.size);
      let result;
      try {
        result = await api.importTreatments(source, (p) => bar.update(p));
      } catch (err) {
        bar.done(false);
        throw err;
      }
      bar.done();
      if (g.json) return printJson(result);
      console.log(`Imported ${result.imported} treatments: ${result.created} created, ${result.updated} updated.`);
    });
}
