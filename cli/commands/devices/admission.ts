/**
 * Device admission (docs/REQUIREMENTS.md §11): devices pending, accept, reject, reset-credentials, preauthorize. Several ids are
 * handled one after another; any refusal is reported on standard error and the run ends with exit status 1.
 */
import { type Command, InvalidArgumentError } from "commander";
import { DeviceId } from "../../../shared/schemas/device.ts";
import type { Device, PreauthorizeManyResult } from "../../../shared/schemas/device.ts";
import { ApiError } from "../../../shared/client.ts";
import { RefusedError, UsageError } from "../../lib/errors.ts";
import { formatDate, orDash, printJson, printTable } from "../../lib/output.ts";
import { globals, signedInClient } from "../../lib/session.ts";

function wholeNumber(min: number, max: number) {
  return (value: string): number => {
    if (!/^\d{1,9}$/.test(value) || Number(value) < min || Number(value) > max) {
      throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}.`);
    }
    return Number(value);
  };
}

/** Checks ids before anything is sent: a malformed one is wrong usage (exit 2), naming where it came from. */
function checkIds(ids: { id: string; where: string }[]): string[] {
  for (const { id, where } of ids) {
    if (!DeviceId.safeParse(id).success) {
      throw new UsageError(`${where}: "${id}" is not a device id (1-128 letters, digits, '.', '_', ':' or '-').`);
    }
  }
  return ids.map((i) => i.id);
}

/** Device ids from a file: one per line; blank lines and lines starting with # are skipped. */
async function idsFromFile(path: string): Promise<{ id: string; where: string }[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) throw new UsageError(`${path}: no such file.`);
    if (err instanceof Deno.errors.PermissionDenied) throw new UsageError(`${path}: permission denied.`);
    if (err instanceof Deno.errors.IsADirectory) throw new UsageError(`${path}: not a regular file.`);
    throw err;
  }
  return text.split(/\r?\n/).flatMap((line, i) => {
    const id = line.trim();
    return id === "" || id.startsWith("#") ? [] : [{ id, where: `${path} line ${i + 1}` }];
  });
}

/** Runs one admission action per id; answers the devices as they now are and throws after the rest when any failed. */
async function each(
  ids: string[],
  action: (id: string) => Promise<Device>,
  json: boolean,
  done: (d: Device) => string,
): Promise<void> {
  const saved: Device[] = [];
  const failed: string[] = [];
  for (const id of ids) {
    try {
      const device = await action(id);
      saved.push(device);
      if (!json) console.log(done(device));
    } catch (err) {
      if (!(err instanceof ApiError) || err.kind !== "HTTP_ERROR" || err.status === 401) throw err;
      console.error(`error: ${id}: ${err.msg}`);
      failed.push(id);
    }
  }
  if (json) printJson(saved);
  if (failed.length) {
    throw new RefusedError(`${failed.length} of ${ids.length} device(s) refused: ${failed.join(", ")}.`);
  }
}

export function registerDevicesAdmission(devices: Command): void {
  devices
    .command("pending")
    .description("list the devices waiting for an operator to accept or reject them (DEVICE_AUTH=token)")
    .option("--page <P>", "page number, from 0", wholeNumber(0, 1_000_000_000))
    .option("--per-page <N>", "devices per page, 1-100 (default 25)", wholeNumber(1, 100))
    .addHelpText(
      "after",
      `\nExamples:\n  $ deno task cli devices pending\n  $ deno task cli --json devices pending | jq -r '.data[].deviceId'`,
    )
    .action(async (opts: { page?: number; perPage?: number }, cmd: Command) => {
      const g = globals(cmd);
      const api = await signedInClient(cmd);
      const list = await api.listDevices({ page: opts.page, rowsPerPage: opts.perPage, admission: "pending" });
      if (g.json) return printJson(list);
      if (list.data.length > 0) {
        printTable(
          ["DEVICE ID", "APP", "OS", "FIRST SEEN", "LAST ENROLMENT"],
          list.data.map((d) => [
            d.deviceId,
            orDash(d.versionInfo?.app),
            orDash(d.versionInfo?.os),
            formatDate(d.createdAt),
            formatDate(d.updatedAt),
          ]),
        );
      }
      console.log(
        list.total === 0
          ? "No device is waiting for admission."
          : `${list.total} device(s) waiting; accept with: deno task cli devices accept <deviceId>...`,
      );
    });

  devices
    .command("accept")
    .description("accept devices: each one's next enrolment gets its token")
    .argument("<deviceId...>", "device ids")
    .addHelpText("after", `\nExample:\n  $ deno task cli devices accept JB-000123 JB-000124`)
    .action(async (ids: string[], _opts: unknown, cmd: Command) => {
      const list = checkIds(ids.map((id) => ({ id, where: "argument" })));
      const api = await signedInClient(cmd);
      await each(list, (id) => api.acceptDevice(id), !!globals(cmd).json, (d) => `Accepted ${d.deviceId}.`);
    });

  devices
    .command("reject")
    .description("reject devices: their tokens stop working at once and their enrolments are refused")
    .argument("<deviceId...>", "device ids")
    .addHelpText("after", `\nExample:\n  $ deno task cli devices reject JB-000666`)
    .action(async (ids: string[], _opts: unknown, cmd: Command) => {
      const list = checkIds(ids.map((id) => ({ id, where: "argument" })));
      const api = await signedInClient(cmd);
      await each(list, (id) => api.rejectDevice(id), !!globals(cmd).json, (d) => `Rejected ${d.deviceId}.`);
    });

  devices
    .command("reset-credentials")
    .description("forget a device's token (it stops working at once); an accepted device may enrol again")
    .argument("<deviceId>", "the device's id")
    .addHelpText("after", `\nExample:\n  $ deno task cli devices reset-credentials JB-000123`)
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      checkIds([{ id, where: "argument" }]);
      const api = await signedInClient(cmd);
      await each(
        [id],
        (i) => api.resetDeviceCredentials(i),
        !!globals(cmd).json,
        (d) => `Credentials of ${d.deviceId} reset; it may enrol again (admission: ${d.admission}).`,
      );
    });

  devices
    .command("preauthorize")
    .description("pre-authorize device ids (a factory's list): each one's first enrolment gets its token at once")
    .argument("[deviceId...]", "device ids")
    .option("--file <ids.txt>", "read device ids from a file, one per line (# comments and blank lines skipped)")
    .addHelpText(
      "after",
      `\nExamples:\n  $ deno task cli devices preauthorize JB-000200 JB-000201\n  $ deno task cli devices preauthorize --file batch-2026-11.txt`,
    )
    .action(async (args: string[], opts: { file?: string }, cmd: Command) => {
      const given = args.map((id) => ({ id, where: "argument" }));
      if (opts.file) given.push(...await idsFromFile(opts.file));
      if (given.length === 0) throw new UsageError("name at least one device id, or a file with --file.");
      const ids = checkIds(given);
      const api = await signedInClient(cmd);
      // Batches well under the 1 MiB body limit; each batch is one transaction on the server.
      const result: PreauthorizeManyResult = { created: [], existing: [] };
      for (let i = 0; i < ids.length; i += 5000) {
        const part = await api.preauthorizeDevices(ids.slice(i, i + 5000));
        result.created.push(...part.created);
        result.existing.push(...part.existing);
      }
      if (globals(cmd).json) return printJson(result);
      console.log(`Pre-authorized ${result.created.length} device(s).`);
      if (result.existing.length) {
        console.log(
          `${result.existing.length} already known, left as they are: ${
            result.existing.map((e) => `${e.deviceId} (${e.admission})`).join(", ")
          }.`,
        );
      }
    });
}
