import * as metrics from "../metrics.ts";
import { routes } from "../../shared/routes/mod.ts";
import { firmwareContentType } from "../../shared/schemas/firmware.ts";
import type { AppContext } from "../context.ts";
import { attachmentDisposition, openFirmwareFile } from "../lib/firmware_file.ts";
import { receiveUpload } from "../lib/upload.ts";
import { type Api, mount } from "../mount.ts";
import { firmwaresService } from "../services/firmwares.ts";

const servedToOperators = metrics.firmwareBytesServed.labels({ to: "operators" });

export function firmwaresRoutes(api: Api, ctx: AppContext) {
  const firmwares = firmwaresService(ctx);
  mount(api, routes.listFirmwares, async (c) => c.json(await firmwares.list()));
  mount(api, routes.uploadFirmware, async (c) => c.json(await firmwares.upload((opts) => receiveUpload(c, opts)), 201));
  mount(api, routes.firmwareFile, async (_c, { params: { id } }) => {
    const firmware = await firmwares.get(id);
    const body = await openFirmwareFile(ctx.files, firmware);
    return new Response(metrics.countedBody(body, servedToOperators), {
      headers: {
        "Content-Type": firmwareContentType(firmware.name),
        "Content-Length": String(firmware.size),
        "Content-Disposition": attachmentDisposition(firmware.name),
        "Cache-Control": "no-store",
      },
    });
  });
  mount(api, routes.deleteFirmware, async (c, { params: { id } }) => {
    await firmwares.remove(id);
    return c.body(null, 204);
  });
}
