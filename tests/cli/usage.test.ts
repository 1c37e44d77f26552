import assert from "node:assert/strict";
import { closedPortUrl, runCli, show } from "./run_cli.ts";

const COMMANDS = [
  [],
  ["login"],
  ["firmware"],
  ["firmware", "list"],
  ["firmware", "upload"],
  ["firmware", "delete"],
  ["firmware", "approve"],
  ["firmware", "set-default"],
  ["firmware", "unset-default"],
  ["treatments"],
  ["treatments", "list"],
  ["treatments", "import"],
  ["devices"],
  ["devices", "list"],
  ["devices", "show"],
  ["product-types"],
  ["product-types", "list"],
  ["rollouts"],
  ...["create", "list", "show", "start", "pause", "resume", "advance", "retry", "cancel", "promote"].map((
    c,
  ) => ["rollouts", c]),
  ["tokens"],
  ["tokens", "create"],
  ["tokens", "list"],
  ["tokens", "revoke"],
  ["views"],
  ["views", "list"],
  ["views", "save"],
  ["views", "update"],
  ["views", "delete"],
];

Deno.test("CLI --help on every command: exit 0, usage and an example on stdout", async () => {
  for (const cmd of COMMANDS) {
    const r = await runCli([...cmd, "--help"]);
    const name = ["deno task cli", ...cmd].join(" ");
    assert.equal(r.code, 0, `${name}: ${show(r)}`);
    assert.ok(r.stdout.startsWith(`Usage: ${name}`), `${name}: ${show(r)}`);
    assert.match(r.stdout, /Examples?:\n {2}\$ deno task cli /, name);
    assert.equal(r.stderr, "");
  }
});

Deno.test("CLI wrong usage exits 2 with one error line on stderr and nothing on stdout", async () => {
  const cases: [string[], RegExp][] = [
    [[], /Usage: deno task cli/],
    [["frimware", "list"], /unknown command 'frimware'/],
    [["firmware"], /Usage: deno task cli firmware/],
    [["firmware", "lst"], /unknown command 'lst'/],
    [["firmware", "list", "--bogus"], /unknown option '--bogus'/],
    [["firmware", "delete"], /missing required argument 'id\|name'/],
    [["--url"], /argument missing/],
    [["devices", "list", "--per-page"], /argument missing/],
    [["tokens", "create", "ci"], /required option '--scope/],
    [["tokens", "create", "--scope", "read"], /missing required argument 'name'/],
    [["rollouts", "show", "x", "--wait", "--timeout", "0"], /--timeout.*seconds, more than 0/],
    [["tokens", "create", "ci", "--scope", "root"], /unknown scope root/],
    [["tokens", "create", "ci", "--scope", "read", "--expires", "soon"], /'soon' is neither a duration/],
    [["tokens", "revoke"], /missing required argument 'id'/],
    [["views", "save"], /missing required argument 'name'/],
    [["views", "save", "x", "--sort", "color"], /argument 'color' is invalid/],
    [["views", "update", "x"], /give --name, --shared or --private/],
  ];
  for (const [args, message] of cases) {
    const r = await runCli(args, { env: { CONSOLE_TOKEN: "unused", CONSOLE_URL: closedPortUrl() } });
    assert.equal(r.code, 2, `${args.join(" ")}: ${show(r)}`);
    assert.match(r.stderr, message, args.join(" "));
    assert.equal(r.stdout, "", args.join(" "));
    // a command group without its subcommand shows the group's help (on stderr); anything else is one line
    if (args.length > 1 || args[0]?.startsWith("-")) {
      assert.match(r.stderr, /^error: [^\n]+ \(add --help for usage\)\n$/, args.join(" "));
    }
  }
});

Deno.test("CLI --version prints the release on stdout, exit 0", async () => {
  const r = await runCli(["--version"]);
  assert.equal(r.code, 0, show(r));
  assert.match(r.stdout, /^\d+\.\d+\.\d+\n$/);
  assert.equal(r.stderr, "");
});
