/**
 * Firmwares: a row and its file, kept together (server/firmware_storage.ts: a row exists only for a complete file).
 * Upload: the body is checked as it streams (name, then by its extension the xz magic and the whole xz stream, or the
 * whole cpio archive of an SWUpdate image), the file committed, then the row;
 * delete: the row in its transaction (its audit entry with it), then the file.
 */
import * as metrics from "../metrics.ts";
import type { Firmware } from "../../shared/schemas/firmware.ts";
import type { AppContext } from "../context.ts";
import { noFirmware } from "../db/rules/firmwares.ts";
import { notFound } from "../errors.ts";
import type { FirmwarePut } from "../files/firmware_files.ts";
import { checkFirmwareName, duplicateName, firmwareContentRules, storeFirmware } from "../firmware_storage.ts";
import type { ReceivedFile, ReceiveOptions } from "../lib/upload.ts";

/** Receives the request's file with the options given (the route binds it to its request: lib/upload.ts). */
export type Receive = (opts: ReceiveOptions<FirmwarePut>) => Promise<ReceivedFile<FirmwarePut>>;

export type FirmwaresService = ReturnType<typeof firmwaresService>;

export function firmwaresService(ctx: AppContext) {
  const { files } = ctx;
  const { firmwares } = ctx.stores;
  const received = metrics.uploadBytes.labels({ kind: "firmware" });

  return {
    list: () => firmwares.list(),

    /** The firmware, or 404. */
    async get(id: string): Promise<Firmware> {
      const firmware = await firmwares.get(id);
      if (!firmware) throw notFound(noFirmware(id));
      return firmware;
    },

    /** A new firmware from an upload; `duplicateOf` names a firmware already holding the same bytes. */
    async upload(receive: Receive): Promise<Firmware & { duplicateOf?: string }> {
      // A name is refused as soon as the part's headers arrive, before a byte is written: against the names stored
      // when the upload began (one taken while the body streams is caught below, and by the insert).
      const taken = new Set((await firmwares.list()).map((f) => f.name));
      const file = await receive({
        sink: () => files.put(),
        idleMs: ctx.config.BODY_IDLE_SECONDS * 1000,
        received,
        maxBytes: ctx.config.MAX_FIRMWARE_BYTES,
        limitName: "MAX_FIRMWARE_BYTES",
        checkName: (name) => {
          checkFirmwareName(name);
          if (taken.has(name)) throw duplicateName(name);
        },
        // The whole file is tested as it arrives, by its format; a refusal is known before any row is written.
        forName: firmwareContentRules,
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
      return original ? { ...firmware, duplicateOf: original._id } : firmware;
    },

    /**
     * Deletes the row (refused while a device type, device or rollout uses it; audited in the same transaction), then
     * the file. Once the row is gone the firmware is: a file that cannot be removed now (the bucket unreachable) has
     * no row, so the sweep of the next start removes it (bootstrap.ts), and the delete still succeeds.
     */
    async remove(id: string): Promise<void> {
      const deleted = await firmwares.remove(id);
      try {
        await files.remove(id);
      } catch (err) {
        ctx.log(
          `WARNING: firmware ${deleted.name} (${id}) deleted; its file stays until the next start's sweep: ${
            err instanceof Error ? err.message : String(err)
          }`,
        );
      }
      ctx.log(`Firmware ${deleted.name} (${id}) deleted.`);
    },
  };
}
