import { type Command, Option } from "commander";
import { findView } from "../../lib/lookup.ts";
import { printJson } from "../../lib/output.ts";
import { globals, signedInClient } from "../../lib/session.ts";
import { queryText } from "./list.ts";

export function registerViewsUpdate(views: Command): void {
  views
    .command("update")
    .description("rename one of your saved views, or share or unshare it (views save --replace changes its filters)")
    .argument("<name|id>", "the view's name (yours first) or id (views list)")
    .option("--name <new-name>", "its new name, unique among yours (ignoring case)")
    .addOption(new Option("--shared", "let every operator see (not change) it").conflicts("private"))
    .option("--private", "only you see it")
    .addHelpText(
      "after",
      `
Examples:
  $ deno task cli views update "Failed updates" --name "Failed updates (EU)"
  $ deno task cli views update "Failed updates" --shared`,
    )
    .action(async (idOrName: string, opts: { name?: string; shared?: boolean; private?: boolean }, cmd: Command) => {
      if (opts.name === undefined && !opts.shared && !opts.private) {
        cmd.error("error: give --name, --shared or --private.");
      }
      const g = globals(cmd);
      const api = await signedInClient(cmd);
      const found = await findView(api, idOrName);
      const view = await api.patchSavedView(found._id, {
        ...(opts.name !== undefined ? { name: opts.name } : {}),
        ...(opts.shared ? { shared: true } : opts.private ? { shared: false } : {}),
      });
      if (g.json) return printJson(view);
      console.log(`Updated view ${view._id} (${view.name}${view.shared ? ", shared" : ""}): ${queryText(view.query)}.`);
    });
}
