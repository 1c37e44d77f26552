/**
 * Operator management on the server host:
 *   deno task user add <email> [--role admin|operator|viewer]   (default operator)
 *   deno task user reset-password <email>
 * The password is read from standard input (first line) or prompted for on a terminal.
 */
import { hashPassword } from "./auth/password.ts";
import { makePrivateDir } from "./bootstrap.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { pathsFor } from "./context.ts";
import { ConflictError } from "./db/errors.ts";
import { NewerSchemaError, openStores, storesConfig } from "./db/mod.ts";
import { MIN_PASSWORD_LENGTH } from "../shared/schemas/auth.ts";
import { Role } from "../shared/schemas/operator.ts";

const USAGE =
  "Usage: deno task user add <email> [--role admin|operator|viewer] | deno task user reset-password <email>";

async function readPassword(): Promise<string> {
  if (Deno.stdin.isTerminal()) {
    const value = prompt("Password:");
    return value ?? "";
  }
  const text = await new Response(Deno.stdin.readable).text();
  return text.split(/\r?\n/)[0] ?? "";
}

async function main(args: string[]): Promise<number> {
  const [command, email, ...rest] = args;
  let role: Role = "operator";
  if (command === "add" && rest[0] === "--role") {
    const parsed = Role.safeParse(rest[1]);
    if (!parsed.success) {
      console.error(`--role must be admin, operator or viewer, not ${rest[1] ?? "nothing"}.`);
      return 2;
    }
    role = parsed.data;
    rest.splice(0, 2);
  }
  if (!command || !email || rest.length || !["add", "reset-password"].includes(command)) {
    console.error(USAGE);
    return 2;
  }
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) {
    console.error(`Not an e-mail address: ${email}`);
    return 2;
  }
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      return 2;
    }
    throw err;
  }
  const paths = pathsFor(config.DATA_DIR);
  const warning = await makePrivateDir(paths.data);
  if (warning) console.error(warning);
  let stores;
  try {
    stores = await openStores(storesConfig(paths, config));
  } catch (err) {
    if (err instanceof NewerSchemaError) {
      console.error(err.message);
      return 1;
    }
    throw err;
  }
  try {
    const exists = !!await stores.operators.find(email);
    if (command === "add" && exists) {
      console.error(`Operator ${email} exists already; use reset-password.`);
      return 1;
    }
    if (command === "reset-password" && !exists) {
      console.error(`No operator ${email}.`);
      return 1;
    }
    const password = await readPassword();
    if (password.length < MIN_PASSWORD_LENGTH) {
      console.error(`The password must be at least ${MIN_PASSWORD_LENGTH} characters long.`);
      return 1;
    }
    const hash = await hashPassword(password);
    if (command === "add") {
      try {
        await stores.operators.add(email, hash, role);
      } catch (err) {
        if (!(err instanceof ConflictError)) throw err;
        console.error(`Operator ${email} exists already; use reset-password.`);
        return 1;
      }
    } else if (!await stores.operators.setPassword(email, hash)) {
      console.error(`No operator ${email}.`);
      return 1;
    }
    console.log(
      command === "add"
        ? `Added operator ${email} (${role}).`
        : `Password of ${email} reset; earlier tokens no longer work.`,
    );
    return 0;
  } finally {
    await stores.close();
  }
}

Deno.exit(await main(Deno.args));
