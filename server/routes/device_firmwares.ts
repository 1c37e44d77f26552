import * as metrics from "../metrics.ts";
import { Hono } from "hono";
import { XZ_MAGIC } from "../../shared/schemas/firmware.ts";
import type { AppContext, AppEnv } from "../context.ts";
import { noFirmware } from "../db/rules/firmwares.ts";
import { invalidFirmware, notFound, unsupported } from "../errors.ts";
import { startXzCheck } from "../files/xz_check.ts";
import { checkFirmwareName, duplicateName, storeFirmware } from "../firmware_storage.ts";
import { attachmentDisposition, openFirmwareFile } from "../lib/firmware_file.ts";
import { receiveUpload } from "../lib/upload.ts";

const servedToOperators = metrics.firmwareBytesServed.labels({ to: "operators" });

export function firmwaresRoutes(ctx: AppContext) {
  const { files } = ctx;
  const { firmwares } = ctx.stores;

  const existing = async (id: string) => {
    const firmware = await firmwares.get(id);
    if (!firmware) throw notFound(noFirmware(id));
    return firmware;
  };

  return new Hono<AppEnv>()
    .get("/", async (c) => c.json(await firmwares.list()))
    .post("/", async (c) => {
      // A name is refused as soon as the part's headers arrive, before a byte is written: against the names stored
      // when the upload began (one taken while the body streams is caught below, and by the insert).
      const taken = new Set((await firmwares.list()).map((f) => f.name));
      const file = await receiveUpload(c, {
        sink: () => files.put(),
        idleMs: ctx.config.BODY_IDLE_SECONDS * 1000,
        received: metrics.uploadBytes.labels({ kind: "firmware" }),
        maxBytes: ctx.config.MAX_FIRMWARE_BYTES,
        magic: XZ_MAGIC,
        limitName: "MAX_FIRMWARE_BYTES",
        magicError: (name) => unsupported(`${name} is not an xz file: it does not start with the xz signature.`),
        checkName: (name) => {
          checkFirmwareName(name);
          if (taken.has(name)) throw duplicateName(name);
        },
        // The whole stream is tested as it arrives; a refusal is known before any row is written.
        verify: {
          start: startXzCheck,
          error: (name, problem) => invalidFirmware(`${name} is not a valid xz file: ${problem}.`),
        },
      });
      // The name may have been taken while the body streamed: storeFirmware's insert catches that too.
      if (await firmwares.nameTaken(file.name)) {
        await file.sink.abort();
        throw duplicateName(file.name);
      }
      const firmware = await storeFirmware(firmwares, files, file.sink, file);
      ctx.log(`Firmware ${firmware.name} stored as ${firmware._id} (${firmware.size} bytes).`);
      // Allowed, but said: the same bytes already stored under another name (looked up after the insert, so of two
      // uploads of the same bytes at once each names the other).
      const original = await firmwares.firstWithSha256(firmware.sha256, firmware._id);
      return c.json(original ? { ...firmware, duplicateOf: original._id } : firmware, 201);
    })
    .get("/:id/file", async (c) => {
      const firmware = await existing(c.req.param("id"));
      const body = await openFirmwareFile(files, firmware);
      return new Response(metrics.countedBody(body, servedToOperators), {
        headers: {
          "Content-Type": "application/x-xz",
          "Content-Length": String(firmware.size),
          "Content-Disposition": attachmentDisposition(firmware.name),
          "Cache-Control": "no-store",
        },
      });
    })
    .delete("/:id", async (c) => {
      const id = c.req.param("id");
      const deleted = await firmwares.remove(id);
      await files.remove(id);
      ctx.log(`Firmware ${deleted.name} (${id}) deleted.`);
      return c.body(null, 204);
    });
}
