import { Hono } from "hono";
import { routes } from "../../shared/routes/mod.ts";
import type { Device, DeviceFilter } from "../../shared/schemas/device.ts";
import { DEVICE_CSV_COLUMNS, DEVICE_FILTER_KEYS } from "../../shared/schemas/device.ts";
import type { AppContext, AppEnv } from "../context.ts";
import type { DeviceView } from "../db/rules/device_view.ts";
import type { ViewCursor } from "../db/rules/view_cursor.ts";
import { csvLine as line } from "../db/rules/csv.ts";
import { bodyOf, queryOf } from "../route_table.ts";

/** The filter members of a parsed query (undefined ones left out). */
export function filterOf(query: Record<string, unknown>): DeviceFilter {
  const filter: Record<string, unknown> = {};
  for (const key of DEVICE_FILTER_KEYS) if (query[key] !== undefined) filter[key] = query[key];
  return filter as DeviceFilter;
}

/**
 * In DEVICE_AUTH=shared every device counts as accepted (CONTRACT §11): an admission filter of accepted is no filter,
 * any other matches nothing (null).
 */
function sharedModeFilter(filter: DeviceFilter, ctx: AppContext): DeviceFilter | null {
  if (ctx.config.DEVICE_AUTH === "token" || filter.admission === undefined) return filter;
  if (filter.admission !== "accepted") return null;
  const { admission: _, ...rest } = filter;
  return rest;
}

/** Devices per export batch: memory stays flat whatever the fleet's size. */
const CSV_BATCH = 1000;

/** Fleet views (CONTRACT §16): the CSV export, bulk changes and the overview. */
export function fleetRoutes(ctx: AppContext) {
  const { devices } = ctx.stores;
  const product = ctx.config.PRODUCT;
  return new Hono<AppEnv>()
    .get("/devices.csv", async (c) => {
      const { sort, order, ...rest } = queryOf(routes.devicesCsv, c);
      const filter = sharedModeFilter(filterOf(rest), ctx);
      const view: DeviceView = { filter: filter ?? {}, sort, order };
      const names = await devices.names();
      const encoder = new TextEncoder();
      const row = (d: Device) =>
        line([
          d.deviceId,
          d.productTypeId === null ? null : names.productTypes.get(d.productTypeId) ?? d.productTypeId,
          d.firmware === null ? null : names.firmwares.get(d.firmware) ?? d.firmware,
          d.moduleIds.length,
          d.additionalTreatmentIds.length,
          d.lastLoggedIn,
          d.updatedAt,
          d.versionInfo?.app ?? null,
          d.versionInfo?.os ?? null,
        ]);
      // Each batch starts after the last row of the one before (keyset), so the export is linear in its size.
      let after: ViewCursor | null = null;
      // An admission filter that matches nothing in shared mode: the header row only.
      let done = filter === null;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(encoder.encode(line([...DEVICE_CSV_COLUMNS])));
          if (done) controller.close();
        },
        async pull(controller) {
          if (done) return;
          const { data, next } = await devices.batch(view, after, CSV_BATCH, product);
          after = next;
          if (data.length) controller.enqueue(encoder.encode(data.map(row).join("")));
          if (next === null) {
            done = true;
            controller.close();
          }
        },
      }, { highWaterMark: 1 });
      return c.body(body, 200, {
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": 'attachment; filename="devices.csv"',
        "Cache-Control": "no-store",
      });
    })
    .post("/devices/bulk", async (c) => {
      const { deviceIds, filter, set } = await bodyOf(routes.bulkDevices, c);
      const shared = filter === null ? null : sharedModeFilter(filter, ctx);
      if (filter !== null && shared === null) return c.json({ updated: 0 }, 200);
      const target = deviceIds !== null ? { deviceIds } : { filter: shared! };
      const { updated } = await devices.bulk(target, set, product);
      return c.json({ updated }, 200);
    })
    .get("/overview", async (c) => {
      const overview = await devices.overview(product);
      // In DEVICE_AUTH=shared every device counts as accepted (CONTRACT §11): none is pending.
      if (ctx.config.DEVICE_AUTH !== "token") overview.devices.pending = 0;
      return c.json(overview, 200);
    });
}
