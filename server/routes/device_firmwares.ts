import { Hono } from "hono";
import { XZ_MAGIC } from "../../shared/schemas/firmware.ts";
import type { AppContext, AppEnv } from "../context.ts";
import {
  checkNewFirmwareName,
  deleteFirmwareRow,
  duplicateName,
  firmwareNameTaken,
  firmwarePath,
  type FirmwareUse,
  getFirmware,
  listFirmwares,
  storeFirmwareFile,
} from "../db/firmwares.ts";
import { conflict, notFound, unsupported } from "../errors.ts";
import { attachmentDisposition, openFirmwareFile } from "../lib/firmware_file.ts";
import { discard, receiveUpload } from "../lib/upload.ts";

function inUseMessage(name: string, use: FirmwareUse): string {
  const reasons: string[] = [];
  if (use.defaultOf.length) reasons.push(`it is the default firmware of device type ${use.defaultOf.join(", ")}`);
  if (use.devices) {
    reasons.push(`it is the custom firmware of ${use.devices} device${use.devices === 1 ? "" : "s"}`);
  }
  return `Firmware ${name} cannot be deleted: ${reasons.join(" and ")}.`;
}

export function firmwaresRoutes(ctx: AppContext) {
  const { db, paths } = ctx;

  const existing = (id: string) => {
    const firmware = getFirmware(db, id);
    if (!firmware) throw notFound(`No firmware with id ${id}.`);
    return firmware;
  };

  return new Hono<AppEnv>()
    .get("/", (c) => c.json(listFirmwares(db)))
    .post("/", async (c) => {
      const file = await receiveUpload(c, {
        tmpDir: paths.tmp,
        maxBytes: ctx.config.MAX_FIRMWARE_BYTES,
        magic: XZ_MAGIC,
        limitName: "MAX_FIRMWARE_BYTES",
        magicError: (name) => unsupported(`${name} is not an xz file: it does not start with the xz signature.`),
        checkName: (name) => checkNewFirmwareName(db, name),
      });
      // The name may have been taken while the body streamed: storeFirmwareFile's insert catches that too.
      if (firmwareNameTaken(db, file.name)) {
        await discard(file);
        throw duplicateName(file.name);
      }
      const firmware = await storeFirmwareFile(db, paths, file.path, file);
      ctx.log(`Firmware ${firmware.name} stored as ${firmware._id} (${firmware.size} bytes).`);
      return c.json(firmware, 201);
    })
    .get("/:id/file", async (c) => {
      const firmware = existing(c.req.param("id"));
      const { file, size } = await openFirmwareFile(paths, firmware);
      return new Response(file.readable, {
        headers: {
          "Content-Type": "application/x-xz",
          "Content-Length": String(size),
          "Content-Disposition": attachmentDisposition(firmware.name),
          "Cache-Control": "no-store",
        },
      });
    })
    .delete("/:id", async (c) => {
      const id = c.req.param("id");
      const result = deleteFirmwareRow(db, id);
      if (!result) throw notFound(`No firmware with id ${id}.`);
      if ("inUse" in result) throw conflict(inUseMessage(result.firmware.name, result.inUse));
      await Deno.remove(firmwarePath(paths, id)).catch((err) => {
        if (!(err instanceof Deno.errors.NotFound)) throw err;
      });
      ctx.log(`Firmware ${result.deleted.name} (${id}) deleted.`);
      return c.body(null, 204);
    });
}
