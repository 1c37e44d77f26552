import { describe, expect, it } from "vitest";
import { bulkConfirm, firmwareConfirm, treatmentConfirm } from "./confirmTexts.ts";
import { countCsvRecords } from "./deviceCount.ts";

describe("device confirmations name their effect", () => {
  it("setting a custom firmware says what the device installs and when", () => {
    expect(firmwareConfirm("unit-7", "fw-2.1.xz", null)).toEqual({
      header: "Set custom firmware fw-2.1.xz on device unit-7?",
      message: "It will install fw-2.1.xz at its next check-in instead of the default device firmware.",
      accept: "Set firmware",
      keep: "Keep current",
    });
    expect(firmwareConfirm("unit-7", "fw-b.xz", "fw-a.xz").message).toBe(
      "It will install fw-b.xz at its next check-in instead of fw-a.xz.",
    );
  });

  it("clearing names the firmware taken away", () => {
    const t = firmwareConfirm("unit-1", null, "custom-3.xz");
    expect(t.header).toBe("Clear custom firmware custom-3.xz on device unit-1?");
    expect(t.message).toBe(
      "Device unit-1 will install the default device firmware at its next check-in instead of custom-3.xz.",
    );
    expect([t.accept, t.keep]).toEqual(["Clear custom firmware", "Keep current"]);
    expect(firmwareConfirm("unit-1", null, null).header).toBe("Clear custom firmware on device unit-1?");
  });

  it("treatments: add and remove, never OK / Cancel", () => {
    const add = treatmentConfirm("add", "unit-1", "Knee relief");
    expect(add.header).toBe("Add treatment Knee relief to device unit-1?");
    expect([add.accept, add.keep]).toEqual(["Add to device", "Don't add"]);
    const remove = treatmentConfirm("remove", "unit-1", "Knee relief");
    expect(remove.header).toBe("Remove treatment Knee relief from device unit-1?");
    expect(remove.message).toBe("Device unit-1 will no longer offer Knee relief after its next check-in.");
    expect([remove.accept, remove.keep]).toEqual(["Remove from device", "Keep treatment"]);
  });

  it("bulk: the server's count in the header and the button, none guessed while counting", () => {
    expect(bulkConfirm(40)).toMatchObject({ header: "Change 40 devices?", accept: "Change 40 devices" });
    expect(bulkConfirm(1).message).toMatch(/^This changes what 1 device runs /);
    const counting = bulkConfirm(null);
    expect(counting.header).toBe("Change the selected devices?");
    expect(counting.header).not.toMatch(/\d/);
  });
});

describe("countCsvRecords", () => {
  const stream = (...parts: string[]) =>
    new ReadableStream<Uint8Array>({
      start(c) {
        for (const p of parts) c.enqueue(new TextEncoder().encode(p));
        c.close();
      },
    });

  it("counts the rows past the header, across chunks, with or without a final line break", async () => {
    expect(await countCsvRecords(stream("id,type\r\n", "a,x\r\nb,", "y\r\n"))).toBe(2);
    expect(await countCsvRecords(stream("id,type\r\na,x\r\nb,y"))).toBe(2);
    expect(await countCsvRecords(stream("id,type\r\n"))).toBe(0);
    expect(await countCsvRecords(stream())).toBe(0);
    expect(await countCsvRecords(null)).toBe(0);
  });

  it("a line break inside a quoted cell is part of the cell", async () => {
    expect(await countCsvRecords(stream('id,name\r\na,"two\r\nlines"\r\nb,"say ""hi""\r\n', '"\r\n'))).toBe(2);
  });
});
