/**
 * hawkBit DDI's requests that span stores and files (docs/REQUIREMENTS.md §18): a deployment needs its firmware's
 * sha1 and md5, which firmwares uploaded before they were kept get computed once from the file (streamed, so memory
 * stays flat whatever the size) and stored.
 */
import { createHash } from "node:crypto";
import type { AppContext } from "../context.ts";
import type { DdiAction } from "../db/types/ddi.ts";
import { openFirmwareFile } from "../lib/firmware_file.ts";

export type DdiDigested = DdiAction & { firmware: DdiAction["firmware"] & { sha1: string; md5: string } };

export function ddiService(ctx: AppContext) {
  const { deviceApi } = ctx.stores;
  /** Computations under way, one per firmware however many devices ask at once. */
  const computing = new Map<string, Promise<{ sha1: string; md5: string }>>();

  async function compute(firmware: DdiAction["firmware"]): Promise<{ sha1: string; md5: string }> {
    const sha1 = createHash("sha1");
    const md5 = createHash("md5");
    for await (const chunk of await openFirmwareFile(ctx.files, firmware)) {
      sha1.update(chunk);
      md5.update(chunk);
    }
    const digests = { sha1: sha1.digest("hex"), md5: md5.digest("hex") };
    await deviceApi.setFirmwareDigests(firmware._id, digests);
    return digests;
  }

  return {
    /** One of the device's actions with its firmware's digests, or null (not the device's). */
    async action(deviceId: string, actionId: number): Promise<DdiDigested | null> {
      const action = await deviceApi.ddiAction(deviceId, actionId);
      if (!action) return null;
      const { firmware } = action;
      if (firmware.sha1 !== null && firmware.md5 !== null) return action as DdiDigested;
      let pending = computing.get(firmware._id);
      if (!pending) {
        pending = compute(firmware).finally(() => computing.delete(firmware._id));
        computing.set(firmware._id, pending);
      }
      return { ...action, firmware: { ...firmware, ...await pending } };
    },
  };
}
