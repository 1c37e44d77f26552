import type { Command } from "commander";
import type { SavedViewQuery } from "../../../shared/schemas/saved_view.ts";
import { formatDate, printJson, printTable } from "../../lib/output.ts";
import { globals, signedInClient } from "../../lib/session.ts";

/** A view's query as `devices list` options would say it (ids as the server keeps them). */
export function queryText(q: SavedViewQuery): string {
  const parts = Object.entries(q).map(([k, v]) => `${k}=${v}`);
  return parts.length ? parts.join(" ") : "(every device)";
}

export function registerViewsList(views: Command): void {
  views
    .command("list")
    .description("list your saved views of the devices list and those other operators shared")
    .addHelpText(
      "after",
      `\nExamples:\n  $ deno task cli views list\n  $ deno task cli --json views list | jq -r '.[].name'`,
    )
    .action(async (_opts: unknown, cmd: Command) => {
      const g = globals(cmd);
      const api = await signedInClient(cmd);
      const list = await api.listSavedViews();
      if (g.json) return printJson(list);
      if (list.length === 0) return console.log("No saved views.");
      printTable(
        ["ID", "NAME", "OWNER", "SHARED", "QUERY", "UPDATED"],
        list.map((v) => [v._id, v.name, v.owner, v.shared ? "yes" : "no", queryText(v.query), formatDate(v.updatedAt)]),
      );
    });
}
