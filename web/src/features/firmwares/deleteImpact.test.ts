import { describe, expect, it } from "vitest";
import type { Firmware } from "../../../../shared/schemas/firmware.ts";
import type { Rollout } from "../../../../shared/schemas/rollout.ts";
import { deleteImpact } from "./deleteImpact.ts";

const fw = { _id: "f1", name: "fw-2.xz" } as Firmware;
const rollout = (name: string, state: Rollout["state"]) => ({ name, state, firmwareId: "f1" }) as Rollout;
const types = (defaultFirmware: string | null) => [{ name: "jeecee_baby_X", defaultFirmware }];

describe("deleteImpact", () => {
  it("says the server's reasons before the delete, and that the refusal is certain", () => {
    const d = deleteImpact(fw, types("f1"), [rollout("Spring", "running"), rollout("Old", "cancelled")], 30);
    expect(d.reasons).toEqual([
      "it is the default firmware of device type jeecee_baby_X",
      "rollout Spring ships it (cancel it first)",
    ]);
    expect(d.refused).toBe(true);
  });

  it("counts pins only when nothing else gives the firmware to devices", () => {
    const pinned = deleteImpact(fw, types(null), [rollout("Draft", "draft")], 3);
    expect(pinned.reasons).toEqual([
      "it is the custom firmware of 3 devices",
      "rollout Draft ships it (cancel it first)",
    ]);
    expect(pinned.devices?.label).toBe("Show the 3 devices");
    const viaRollout = deleteImpact(fw, types(null), [rollout("Done", "finished")], 12);
    expect(viaRollout.refused).toBe(false);
    expect(viaRollout.reasons[0]).toContain("12 devices run it now");
    expect(deleteImpact(fw, types(null), [], 0)).toEqual({ reasons: [], refused: false, devices: undefined });
  });
});
