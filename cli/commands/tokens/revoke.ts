import type { Command } from "commander";
import { printJson } from "../../lib/output.ts";
import { globals, signedInClient } from "../../lib/session.ts";

export function registerTokensRevoke(tokens: Command): void {
  tokens
    .command("revoke")
    .description("revoke an API token: it stops working at once")
    .argument("<id>", "the token's id (tokens list)")
    .addHelpText(
      "after",
      `
With --json it prints {"revoked": "<id>"} (the DELETE itself answers no body).

Example:
  $ deno task cli tokens revoke 01JD3...`,
    )
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const g = globals(cmd);
      const api = await signedInClient(cmd);
      await api.revokeApiToken(id);
      if (g.json) printJson({ revoked: id });
      else console.log(`Revoked API token ${id}.`);
    });
}
