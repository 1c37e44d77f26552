import type { Command } from "commander";
import { UsageError } from "../lib/errors.ts";
import { printJson } from "../lib/output.ts";
import { promptLine, readPassword } from "../lib/prompt.ts";
import { anonymousClient, consoleUrl, globals } from "../lib/session.ts";
import { saveLogin } from "../lib/token_store.ts";

export function registerLogin(program: Command): void {
  program
    .command("login")
    .description("sign in and save the token for later commands (file mode 0600)")
    .option("--email <email>", "operator e-mail (default: CONSOLE_EMAIL, else asked on a terminal)")
    .addHelpText(
      "after",
      `
The password is asked without echo on a terminal, else read from the first line of standard input.
The token is saved with the URL in $XDG_CONFIG_HOME/therapy-console/token.json (or ~/.config/...).

Examples:
  $ deno task cli --url https://console.example.com login --email ops@example.com
  $ printf '%s\\n' "$PASSWORD" | deno task cli login --email ops@example.com`,
    )
    .action(async (opts: { email?: string }, cmd: Command) => {
      const g = globals(cmd);
      const url = consoleUrl(g);
      let email = opts.email ?? Deno.env.get("CONSOLE_EMAIL");
      if (!email && Deno.stdin.isTerminal()) email = (await promptLine("E-mail: ")).trim();
      if (!email) throw new UsageError("login needs --email (or CONSOLE_EMAIL) when standard input is not a terminal.");
      const password = await readPassword();
      const answer = await anonymousClient(url).login(email, password);
      const path = await saveLogin({ url, email, token: answer.token, savedAt: new Date().toISOString() });
      if (g.json) printJson(answer);
      else console.log(`Signed in to ${url} as ${email}; token saved in ${path}.`);
    });
}
