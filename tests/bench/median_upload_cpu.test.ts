/** The bench's upload CPU rows: the median of three runs, every ratio shown, the highest peak RSS. */
import assert from "node:assert/strict";
import { medianUploadCpu, type UploadCpu, uploadCpuRows } from "../../scripts/bench/upload_cpu.ts";

const GiB = 2 ** 30;
const run = (serverCpu: number, peakMiB: number): UploadCpu => ({
  bytes: GiB,
  serverCpu,
  floor: { sha256: 2, sha1: 1, md5: 1, xz: 1 },
  peakRss: peakMiB * 2 ** 20,
  idleRss: 100 * 2 ** 20,
  ms: 1000,
});

Deno.test("the median run of three, with every ratio and the highest peak", () => {
  const m = medianUploadCpu([run(7, 140), run(6, 151), run(6.5, 139)]);
  assert.equal(m.serverCpu, 6.5);
  assert.deepEqual(m.ratios, [1.4, 1.2, 1.3]);
  assert.equal(m.peakRss, 151 * 2 ** 20);
  const [put] = uploadCpuRows({ put: m, form: run(8, 140), bucketPut: run(6, 140) });
  assert.match(put[1], /= 1\.30 \(median of 1\.40, 1\.20, 1\.30\); 151\.0 MiB \(the highest of 3; idle 100\.0 MiB\)/);
  assert.equal(put[3], "**no**"); // 1.30 met, 151 MiB not
  assert.match(
    uploadCpuRows({ put: run(6, 140), form: run(8, 140), bucketPut: run(6, 140) })[0][1],
    /= 1\.20; 140\.0 MiB \(idle 100\.0 MiB\)/,
  );
});

Deno.test("one run is its own median", () => {
  const m = medianUploadCpu([run(6, 140)]);
  assert.equal(m.serverCpu, 6);
  assert.deepEqual(m.ratios, [1.2]);
});
