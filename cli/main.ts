/** The console CLI for release engineers: `deno task cli [--url URL] [--token TOKEN] [--json] <command>`. */
import { Command } from "commander";
import { registerAuditList } from "./commands/audit/list.ts";
import { registerDevicesAdmission } from "./commands/devices/admission.ts";
import { registerDevicesList } from "./commands/devices/list.ts";
import { registerDevicesShow } from "./commands/devices/show.ts";
import { registerFirmwareApprove } from "./commands/firmware/approve.ts";
import { registerFirmwareDelete } from "./commands/firmware/delete.ts";
import { registerFirmwareList } from "./commands/firmware/list.ts";
import { registerFirmwareSetDefault } from "./commands/firmware/set_default.ts";
import { registerFirmwareUnsetDefault } from "./commands/firmware/unset_default.ts";
import { registerFirmwareUpload } from "./commands/firmware/upload.ts";
import { registerLogin } from "./commands/login.ts";
import { registerProductTypesList } from "./commands/product_types/list.ts";
import { registerRollouts } from "./commands/rollouts/rollouts.ts";
import { registerTreatmentsImport } from "./commands/treatments/import.ts";
import { registerTreatmentsList } from "./commands/treatments/list.ts";
import { registerTokensCreate } from "./commands/tokens/create.ts";
import { registerTokensList } from "./commands/tokens/list.ts";
import { registerTokensRevoke } from "./commands/tokens/revoke.ts";
import { registerViewsDelete } from "./commands/views/delete.ts";
import { registerViewsList } from "./commands/views/list.ts";
import { registerViewsSave } from "./commands/views/save.ts";
import { registerViewsUpdate } from "./commands/views/update.ts";
import { exitWhenCancelled } from "./lib/cancel.ts";
import { handleError } from "./lib/errors.ts";
import { DEFAULT_URL } from "./lib/session.ts";
import { RELEASE } from "../shared/version.ts";

/** How the CLI is run (README): the name its usage lines and help show. */
export const CLI_NAME = "deno task cli";

export function buildProgram(): Command {
  const program = new Command(CLI_NAME)
    .description("Command line for the therapy device fleet console")
    .version(RELEASE, "--version", "print the CLI's release and exit")
    .option("--url <url>", `console URL (default: CONSOLE_URL, else ${DEFAULT_URL})`)
    .option(
      "--token <token>",
      "operator or API token (tdc_…) (default: CONSOLE_TOKEN, else CONSOLE_EMAIL + CONSOLE_PASSWORD, else login); prefer CONSOLE_TOKEN: deno task echoes arguments",
    )
    .option("--json", "print the server's JSON on standard output and nothing else there")
    .exitOverride()
    // One line per usage error on stderr, like every other failure (commander would spread hints over several).
    .configureOutput({
      outputError: (str, write) => write(`${str.trim().split(/\s*\n\s*/).join(" ")} (add --help for usage)\n`),
    })
    .addHelpText(
      "after",
      `
Exit status: 0 done, 1 the server or the network refused (message on standard error), 2 wrong usage (or
rollouts show --wait --timeout ran out), 130 / 143 cancelled by SIGINT / SIGTERM (an upload not finished is not
stored; nothing more is done).
Options and arguments may come in any order; long jobs (uploads, imports, rollouts show --wait) print progress
lines on standard error when it is not a terminal (a bar when it is).

Examples:
  $ deno task cli --url https://console.example.com login --email ops@example.com
  $ CONSOLE_TOKEN=tdc_... deno task cli --json firmware upload build/fw-1.4.2.xz --default`,
    );

  registerLogin(program);

  const firmware = group(program, "firmware", "upload, list, delete firmwares and pick the default", "firmware list");
  registerFirmwareList(firmware);
  registerFirmwareUpload(firmware);
  registerFirmwareDelete(firmware);
  registerFirmwareApprove(firmware);
  registerFirmwareSetDefault(firmware);
  registerFirmwareUnsetDefault(firmware);

  const treatments = group(program, "treatments", "list and import treatments", "treatments import t.sqlite3");
  registerTreatmentsList(treatments);
  registerTreatmentsImport(treatments);

  const devices = group(program, "devices", "list, show and admit devices", "devices show JB-000123");
  registerDevicesList(devices);
  registerDevicesShow(devices);
  registerDevicesAdmission(devices);

  const productTypes = group(program, "product-types", "list product types", "product-types list");
  registerProductTypesList(productTypes);

  const audit = group(
    program,
    "audit",
    "read the audit trail",
    "audit list --target-type device --target-id JB-000123",
  );
  registerAuditList(audit);
  const rollouts = group(
    program,
    "rollouts",
    "ship a firmware in stages: create, list, show (--wait), start, pause, resume, advance, retry, cancel, promote",
    "rollouts show <id> --wait",
  );
  registerRollouts(rollouts);
  const tokens = group(program, "tokens", "make, list and revoke API tokens for CI", "tokens list");
  registerTokensCreate(tokens);
  registerTokensList(tokens);
  registerTokensRevoke(tokens);
  const views = group(
    program,
    "views",
    "list, save, update and delete saved views of the devices list (open one with devices list --view)",
    'views save "Failed updates" --update failed --shared',
  );
  registerViewsList(views);
  registerViewsSave(views);
  registerViewsUpdate(views);
  registerViewsDelete(views);

  return program;
}

function group(program: Command, name: string, description: string, example: string): Command {
  return program
    .command(name)
    .description(description)
    .addHelpText("after", `\nExample:\n  $ deno task cli ${example}`);
}

/** Runs the CLI on `args` and returns the exit status; every error goes through handleError. */
export async function run(args: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(args, { from: "user" });
    return 0;
  } catch (err) {
    return handleError(err);
  }
}

if (import.meta.main) {
  exitWhenCancelled();
  Deno.exit(await run(Deno.args));
}
