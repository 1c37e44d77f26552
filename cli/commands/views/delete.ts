import type { Command } from "commander";
import { findView } from "../../lib/lookup.ts";
import { printJson } from "../../lib/output.ts";
import { globals, signedInClient } from "../../lib/session.ts";

export function registerViewsDelete(views: Command): void {
  views
    .command("delete")
    .description("delete one of your saved views (admins: also a view another operator shared)")
    .argument("<name|id>", "the view's name (yours first) or id (views list)")
    .addHelpText(
      "after",
      `
With --json it prints {"deleted": "<id>"} (the DELETE itself answers no body).

Example:
  $ deno task cli views delete "Failed updates"`,
    )
    .action(async (idOrName: string, _opts: unknown, cmd: Command) => {
      const g = globals(cmd);
      const api = await signedInClient(cmd);
      const view = await findView(api, idOrName);
      await api.deleteSavedView(view._id);
      if (g.json) printJson({ deleted: view._id });
      else console.log(`Deleted saved view ${view._id} (${view.name} of ${view.owner}).`);
    });
}
