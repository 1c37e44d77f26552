import type { Command } from "commander";
import { formatDate, printJson, printTable } from "../../lib/output.ts";
import { globals, signedInClient } from "../../lib/session.ts";

export function registerProductTypesList(productTypes: Command): void {
  productTypes
    .command("list")
    .description("list product types ordered by name, with their modules")
    .addHelpText(
      "after",
      `\nExamples:\n  $ deno task cli product-types list\n  $ deno task cli --json product-types list | jq -r '.[].name'`,
    )
    .action(async (_opts: unknown, cmd: Command) => {
      const g = globals(cmd);
      const api = await signedInClient(cmd);
      const list = await api.listProductTypes();
      if (g.json) return printJson(list);
      if (list.length === 0) return console.log("No product types present.");
      printTable(
        ["NAME", "MODULES", "DEFAULT MODULES", "UPDATED", "ID"],
        list.map((p) => [
          p.name,
          p.modules.map((m) => m.name).join(", ") || "-",
          p.modules.filter((m) => m.isDefault).map((m) => m.name).join(", ") || "-",
          formatDate(p.updatedAt),
          p._id,
        ]),
      );
    });
}
