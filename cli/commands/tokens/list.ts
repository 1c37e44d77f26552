import type { Command } from "commander";
import { formatDate, printJson, printTable } from "../../lib/output.ts";
import { globals, signedInClient } from "../../lib/session.ts";

export function registerTokensList(tokens: Command): void {
  tokens
    .command("list")
    .description("list your API tokens, newest first (admins: everyone's); never their secrets")
    .addHelpText("after", `\nExamples:\n  $ deno task cli tokens list\n  $ deno task cli --json tokens list`)
    .action(async (_opts: unknown, cmd: Command) => {
      const g = globals(cmd);
      const api = await signedInClient(cmd);
      const tokens = await api.listApiTokens();
      if (g.json) return printJson(tokens);
      if (tokens.length === 0) return console.log("No API tokens.");
      printTable(
        ["ID", "NAME", "SCOPES", "OWNER", "CREATED", "EXPIRES", "LAST USED"],
        tokens.map((t) => [
          t._id,
          t.name,
          t.scopes.join(","),
          t.owner,
          formatDate(t.createdAt),
          t.expiresAt ? formatDate(t.expiresAt) : "never",
          formatDate(t.lastUsedAt),
        ]),
      );
    });
}
