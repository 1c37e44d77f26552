import { type Command, InvalidArgumentError, Option } from "commander";
import { SCOPES } from "../../../shared/schemas/api_token.ts";
import { formatDate, printJson } from "../../lib/output.ts";
import { globals, signedInClient } from "../../lib/session.ts";

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `30d`, `12h`, `90m` from now, or an ISO 8601 date (`2027-01-31`) or date and time; the instant as ISO. */
export function expiryOf(text: string, now = Date.now()): string {
  const rel = /^(\d{1,6})([mhd])$/.exec(text.trim());
  if (rel) return new Date(now + Number(rel[1]) * UNITS[rel[2]]).toISOString();
  if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text.trim())) {
    const at = Date.parse(text.trim().length === 10 ? `${text.trim()}T00:00:00Z` : text.trim());
    if (!Number.isNaN(at)) return new Date(at).toISOString();
  }
  throw new InvalidArgumentError(`'${text}' is neither a duration (30d, 12h, 90m) nor a date (2027-01-31).`);
}

function collect(value: string, previous: string[] = []): string[] {
  const scopes = value.split(",").map((s) => s.trim()).filter(Boolean);
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length) {
    throw new InvalidArgumentError(`unknown scope ${unknown.join(", ")} (one of ${SCOPES.join(", ")}).`);
  }
  return [...previous, ...scopes];
}

export function registerTokensCreate(tokens: Command): void {
  tokens
    .command("create")
    .description("make an API token for CI or a script and print its secret (shown this once only)")
    .argument("<name>", "what the token is for, e.g. 'nightly firmware upload'")
    .addOption(
      // One value per --scope (not variadic), so the name may come after it: tokens create --scope read "ci".
      new Option("--scope <scope>", `what it may do (repeat or comma-separate): ${SCOPES.join(", ")}`)
        .argParser(collect)
        .makeOptionMandatory(),
    )
    .addOption(
      new Option("--expires <when>", "a duration from now (30d, 12h, 90m) or a date (2027-01-31); default: never")
        .argParser((v) => expiryOf(v)),
    )
    .addHelpText(
      "after",
      `
The secret goes to standard output (with --json: the server's answer, its "token" member); keep it in your CI's
secret store and pass it as CONSOLE_TOKEN or --token. It cannot be shown again: revoke the token and make another.

Examples:
  $ deno task cli tokens create "nightly firmware" --scope firmware:write --expires 90d
  $ deno task cli tokens create --scope read --scope devices:write "fleet report"
  $ deno task cli --json tokens create ci --scope read,devices:write | jq -r .token`,
    )
    .action(async (name: string, opts: { scope: string[]; expires?: string }, cmd: Command) => {
      const g = globals(cmd);
      const expiresAt = opts.expires;
      const api = await signedInClient(cmd);
      const made = await api.createApiToken({
        name,
        scopes: [...new Set(opts.scope)] as typeof SCOPES[number][],
        ...(expiresAt ? { expiresAt } : {}),
      });
      if (g.json) return printJson(made);
      console.error(
        `Made API token ${made._id} (${made.name}; ${made.scopes.join(", ")}; expires ${
          made.expiresAt ? formatDate(made.expiresAt) : "never"
        }). Its secret follows; it will not be shown again:`,
      );
      console.log(made.token);
    });
}
