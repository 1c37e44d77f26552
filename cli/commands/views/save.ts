import type { Command } from "commander";
import type { SavedViewQuery } from "../../../shared/schemas/saved_view.ts";
import { addViewOptions, type ViewOptions, viewQuery } from "../devices/list.ts";
import { printJson } from "../../lib/output.ts";
import { globals, signedInClient } from "../../lib/session.ts";
import { queryText } from "./list.ts";

export function registerViewsSave(views: Command): void {
  addViewOptions(
    views
      .command("save")
      .description("save a view of the devices list (the filters and sort given, as devices list takes them)")
      .argument("<name>", "the view's name, unique among yours (ignoring case)"),
  )
    .option("--shared", "let every operator see (not change) it")
    .option("--replace", "when you already have a view of that name, give it these filters and sort instead")
    .addHelpText(
      "after",
      `
Examples:
  $ deno task cli views save "Failed updates" --update failed --sort lastLoggedIn --order desc --shared
  $ deno task cli views save "Failed updates" --update failed --product-type Walker --replace
  $ deno task cli devices list --view "Failed updates"`,
    )
    .action(async (name: string, opts: ViewOptions & { shared?: boolean; replace?: boolean }, cmd: Command) => {
      const g = globals(cmd);
      const api = await signedInClient(cmd);
      const query = Object.fromEntries(
        Object.entries(await viewQuery(api, opts)).filter(([, v]) => v !== undefined),
      ) as SavedViewQuery;
      const key = name.trim().normalize("NFC").toLowerCase();
      const { email } = opts.replace ? await api.me() : { email: "" };
      const same = opts.replace
        ? (await api.listSavedViews()).find((v) => v.owner === email && v.name.normalize("NFC").toLowerCase() === key)
        : undefined;
      const view = same
        ? await api.patchSavedView(same._id, { query, ...(opts.shared ? { shared: true } : {}) })
        : await api.createSavedView({ name, query, shared: opts.shared ?? false });
      if (g.json) return printJson(view);
      console.log(
        `${same ? "Replaced" : "Saved"} view ${view._id} (${view.name}${view.shared ? ", shared" : ""}): ${
          queryText(view.query)
        }.`,
      );
    });
}
