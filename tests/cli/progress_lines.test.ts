import assert from "node:assert/strict";
import { progressLines } from "../../cli/lib/progress.ts";

Deno.test("progress lines for a log: start, each 10 % step once (skipped steps too), done; a failure says no done", () => {
  const out: string[] = [];
  const bar = progressLines("Uploading fw.xz", 1000, (t) => out.push(t));
  for (const loaded of [0, 50, 100, 101, 250, 990, 1000, 1000]) bar.update({ loaded, total: 1000 });
  bar.done();
  assert.equal(out[0], "Uploading fw.xz: started (1000 B)\n");
  assert.deepEqual(out.slice(1, -1), [
    "Uploading fw.xz: 10 % (100 B of 1000 B)\n",
    "Uploading fw.xz: 20 % (250 B of 1000 B)\n",
    "Uploading fw.xz: 90 % (990 B of 1000 B)\n",
    "Uploading fw.xz: 100 % (1000 B of 1000 B)\n",
  ]);
  assert.match(out.at(-1)!, /^Uploading fw\.xz: done, 1000 B in [\d.]+ s \(.*\/s\)\n$/);

  const failed: string[] = [];
  const other = progressLines("Importing t.sqlite3", 0, (t) => failed.push(t));
  other.update({ loaded: 10, total: 0 });
  other.done(false);
  assert.deepEqual(failed, ["Importing t.sqlite3: started\n"]);
});
