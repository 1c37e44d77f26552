import { routes } from "../../shared/routes/mod.ts";
import type { Device } from "../../shared/schemas/device.ts";
import { DEVICE_CSV_COLUMNS } from "../../shared/schemas/device.ts";
import type { AppContext } from "../context.ts";
import type { DeviceView } from "../db/rules/device_view.ts";
import type { ViewCursor } from "../db/rules/view_cursor.ts";
import { csvLine as line } from "../db/rules/csv.ts";
import { type Api, mount } from "../mount.ts";
import { type DevicesService, filterOf, sharedModeFilter } from "../services/devices.ts";

/** Devices per export batch: memory stays flat whatever the fleet's size. */
const CSV_BATCH = 1000;

/** Fleet views (docs/REQUIREMENTS.md §16): the CSV export, bulk changes and the overview. */
export function fleetRoutes(api: Api, ctx: AppContext, service: DevicesService) {
  const { devices } = ctx.stores;
  const product = ctx.config.PRODUCT;
  mount(api, routes.devicesCsv, async (c, { query }) => {
    const { sort, order, ...rest } = query;
    const filter = sharedModeFilter(ctx, filterOf(rest));
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
  });
  mount(api, routes.bulkDevices, async (c, { body }) => c.json(await service.bulk(body), 200));
  mount(api, routes.overview, async (c) => c.json(await service.overview(), 200));
}
