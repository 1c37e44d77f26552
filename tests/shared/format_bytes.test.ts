import assert from "node:assert/strict";
import { formatBytes } from "../../shared/format_bytes.ts";

Deno.test("formatBytes: binary units with one decimal, whole bytes below 1 KiB", () => {
  const cases: [number, string][] = [
    [0, "0 B"],
    [1, "1 B"],
    [1023, "1023 B"],
    [1024, "1.0 KiB"],
    [1536, "1.5 KiB"],
    [100 * 1024 ** 2, "100.0 MiB"],
    [3_000_006, "2.9 MiB"],
    [2 * 1024 ** 3, "2.0 GiB"],
    [5.5 * 1024 ** 4, "5.5 TiB"],
    [2048 * 1024 ** 4, "2048.0 TiB"],
  ];
  for (const [bytes, text] of cases) assert.equal(formatBytes(bytes), text, `${bytes} bytes`);
});

Deno.test("formatBytes: a value that would print as 1024 of a unit is shown in the next one", () => {
  assert.equal(formatBytes(1023.4), "1023 B");
  assert.equal(formatBytes(1023.6), "1.0 KiB");
  assert.equal(formatBytes(1024 ** 2 - 1), "1.0 MiB");
  assert.equal(formatBytes(1024 ** 2 - 60), "1023.9 KiB");
});

Deno.test("formatBytes: rates in bytes per second are rounded to whole bytes", () => {
  assert.equal(formatBytes(345.67), "346 B");
  assert.equal(formatBytes(1234.5), "1.2 KiB");
});
