import { type Command, InvalidArgumentError } from "commander";
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

export function registerDevicesList(devices: Command): void {
  devices
    .command("list")
    .description("list devices ordered by device id, one page at a time")
    .option("--page <P>", "page number, from 0", wholeNumber(0, 1_000_000_000))
    .option("--per-page <N>", "devices per page, 1-100 (default 25)", wholeNumber(1, 100))
    .option("--q <text>", "only devices whose id contains this text (case-insensitive)")
    .addHelpText(
      "after",
      `
Examples:
  $ deno task cli devices list --per-page 100 --page 2
  $ deno task cli --json devices list --q ab12 | jq -r '.data[].deviceId'`,
    )
    .action(async (opts: { page?: number; perPage?: number; q?: string }, cmd: Command) => {
      const g = globals(cmd);
      const api = await signedInClient(cmd);
      const list = await api.listDevices({ page: opts.page, rowsPerPage: opts.perPage, q: opts.q });
      if (g.json) return printJson(list);
      const productTypes = new Map((await api.listProductTypes()).map((p) => [p._id, p.name]));
      const firmwares = new Map((await api.listFirmwares()).map((f) => [f._id, f.name]));
      if (list.data.length > 0) {
        printTable(
          ["DEVICE ID", "PRODUCT TYPE", "CUSTOM FIRMWARE", "MODULES", "EXTRA TREATMENTS", "LAST LOGIN", "UPDATED"],
          list.data.map((d) => [
            d.deviceId,
            d.productTypeId ? productTypes.get(d.productTypeId) ?? d.productTypeId : "-",
            d.firmware ? firmwares.get(d.firmware) ?? d.firmware : "-",
            orDash(d.moduleIds.length || null),
            orDash(d.additionalTreatmentIds.length || null),
            formatDate(d.lastLoggedIn),
            formatDate(d.updatedAt),
          ]),
        );
      }
      const perPage = list.per_page ?? opts.perPage ?? 25;
      const pages = Math.max(1, Math.ceil(list.total / perPage));
      const first = list.page * perPage;
      console.log(
        list.data.length === 0
          ? `No devices on page ${list.page} (${list.total} in all, pages 0-${pages - 1}).`
          : `Devices ${first + 1}-${first + list.data.length} of ${list.total}; page ${list.page} of pages 0-${
            pages - 1
          }.`,
      );
    });
}
