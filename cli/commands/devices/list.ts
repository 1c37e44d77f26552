import { type Command, InvalidArgumentError, Option } from "commander";
import type { ApiClient } from "../../../shared/client.ts";
import { DEVICE_SEEN, DEVICE_SORTS, DEVICE_UPDATE_FILTERS } from "../../../shared/schemas/device.ts";
import { findFirmware, findView } from "../../lib/lookup.ts";
import { formatDate, orDash, printJson, printTable } from "../../lib/output.ts";
import { RefusedError } from "../../lib/errors.ts";
import { globals, signedInClient } from "../../lib/session.ts";

/** The filter and sort options a devices view takes (devices list, views save). */
export interface ViewOptions {
  q?: string;
  sort?: string;
  order?: string;
  productType?: string;
  firmware?: string;
  app?: string;
  os?: string;
  seen?: string;
  update?: string;
}

interface ListOptions extends ViewOptions {
  page?: number;
  perPage?: number;
  view?: string;
  csv?: boolean;
}

/** A product type by id or exact name (`none`: devices without one). */
async function productTypeFilter(api: ApiClient, idOrName: string): Promise<string> {
  if (idOrName === "none") return idOrName;
  const types = await api.listProductTypes();
  const byId = types.find((t) => t._id === idOrName);
  if (byId) return byId._id;
  const byName = types.filter((t) => t.name === idOrName);
  if (byName.length === 1) return byName[0]._id;
  throw new RefusedError(`No product type with id or name '${idOrName}' (see product-types list).`);
}

/** The view's filters and sort as the server takes them (names resolved to ids; options not given are undefined). */
export async function viewQuery(api: ApiClient, opts: ViewOptions) {
  return {
    q: opts.q,
    sort: opts.sort,
    order: opts.order,
    productTypeId: opts.productType === undefined ? undefined : await productTypeFilter(api, opts.productType),
    firmware: opts.firmware === undefined || opts.firmware === "custom" || opts.firmware === "default"
      ? opts.firmware
      : (await findFirmware(api, opts.firmware))._id,
    app: opts.app,
    os: opts.os,
    seen: opts.seen,
    update: opts.update,
  };
}

function wholeNumber(min: number, max: number) {
  return (value: string): number => {
    if (!/^\d{1,9}$/.test(value) || Number(value) < min || Number(value) > max) {
      throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}.`);
    }
    return Number(value);
  };
}

/** Adds the filter and sort options of a devices view to a command. */
export function addViewOptions(cmd: Command): Command {
  return cmd
    .option("--q <text>", "only devices whose id contains this text (case-insensitive)")
    .addOption(new Option("--sort <column>", "sort by this column (ties by device id)").choices([...DEVICE_SORTS]))
    .addOption(new Option("--order <order>", "ascending or descending").choices(["asc", "desc"]))
    .option("--product-type <id|name|none>", "only devices of this product type (none: without one)")
    .option("--firmware <custom|default|id|name>", "only devices by firmware in effect (custom, default or a firmware)")
    .option("--app <version>", "only devices reporting this app version")
    .option("--os <version>", "only devices reporting this OS version")
    .addOption(
      new Option("--seen <when>", "last check-in within 24 h, 7 days, more than 7 days ago (stale), or never").choices([
        ...DEVICE_SEEN,
      ]),
    )
    .addOption(
      new Option("--update <state>", "latest update report: its state, or none (never reported)").choices([
        ...DEVICE_UPDATE_FILTERS,
      ]),
    );
}

/** The members of `query` that are set (undefined ones left out), so they can override a saved view's. */
const given = <T extends Record<string, unknown>>(query: T): Partial<T> =>
  Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined)) as Partial<T>;

export function registerDevicesList(devices: Command): void {
  addViewOptions(
    devices
      .command("list"),
  )
    .description("list devices one page at a time (or every matching one as CSV), filtered and sorted")
    .option("--page <P>", "page number, from 0", wholeNumber(0, 1_000_000_000))
    .option("--per-page <N>", "devices per page, 1-100 (default 25)", wholeNumber(1, 100))
    .option("--view <name|id>", "start from a saved view's filters and sort (views list); options given override them")
    .option("--csv", "print every matching device as CSV (not one page), streamed from the server")
    .addHelpText(
      "after",
      `
Examples:
  $ deno task cli devices list --per-page 100 --page 2
  $ deno task cli --json devices list --q ab12 | jq -r '.data[].deviceId'
  $ deno task cli devices list --firmware fw-1.2.xz --seen 7d --sort lastLoggedIn --order desc
  $ deno task cli devices list --product-type none --csv > unassigned.csv
  $ deno task cli devices list --view "Failed updates" --csv > failed.csv`,
    )
    .action(async (opts: ListOptions, cmd: Command) => {
      const g = globals(cmd);
      const api = await signedInClient(cmd);
      const saved = opts.view === undefined ? {} : (await findView(api, opts.view)).query;
      const query = { ...saved, ...given(await viewQuery(api, opts)) };
      if (opts.csv) {
        const res = await api.devicesCsv(query);
        await res.body!.pipeTo(Deno.stdout.writable, { preventClose: true });
        return;
      }
      const list = await api.listDevices({ page: opts.page, rowsPerPage: opts.perPage, ...query });
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
      // Not exact: a combination of filters counted only so far past the page (the total is a lower bound).
      const of = list.exact ? `${list.total}` : `at least ${list.total}`;
      const range = list.exact ? `pages 0-${pages - 1}` : `pages 0-${pages - 1} and more`;
      console.log(
        list.data.length === 0
          ? `No devices on page ${list.page} (${of} in all, ${range}).`
          : `Devices ${first + 1}-${first + list.data.length} of ${of}; page ${list.page} of ${range}.`,
      );
    });
}
