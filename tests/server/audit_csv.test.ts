/**
 * GET audit.csv of 100,000 entries is streamed: every entry arrives, newest first, while the server's memory stays
 * flat (its peak grows by far less than the CSV's size).
 */
import assert from "node:assert/strict";
import { seedAuditPostgres, seedAuditSqlite } from "../../testing/audit_seed.ts";
import { startServer } from "../../testing/server.ts";
import { memoryOf, MiB, resetPeak } from "../helpers/load.ts";

const ENTRIES = 100_000;
const PADDING = 800;

Deno.test("GET audit.csv of 100,000 entries: streamed with flat memory", async () => {
  await using srv = await startServer();
  const api = await srv.login();
  const url = srv.engineEnv.DATABASE_URL;
  if (url) await seedAuditPostgres(url, ENTRIES, { padding: PADDING });
  else seedAuditSqlite(`${srv.dataDir}/console.sqlite3`, ENTRIES, { padding: PADDING });
  const total = (await api.listAudit({ rowsPerPage: 1 })).total;
  assert.ok(total > ENTRIES);

  const pid = srv.process.pid;
  // A first whole export sets the server up (the allocator's arenas, the driver's buffers: measured 45-120 MiB once);
  // then two more, back to back, measured together: streamed, they add little; held whole, each would add its size.
  const warm = await readCsv(await api.auditCsv());
  const before = memoryOf(pid).rss;
  resetPeak(pid);
  const first = await readCsv(await api.auditCsv());
  const second = await readCsv(await api.auditCsv());
  const peak = memoryOf(pid).peak;
  console.log(
    `audit.csv: ${total} entries, ${(first.bytes / MiB).toFixed(0)} MiB, three times; server RSS after the first ` +
      `${(before / MiB).toFixed(0)} MiB, peak during the next two ${(peak / MiB).toFixed(0)} MiB`,
  );
  for (const csv of [warm, first, second]) {
    assert.match(csv.header, /^seq,_id,at,actor_type/);
    assert.equal(csv.lines, total + 1);
    assert.ok(csv.ordered, "entries are newest first");
    assert.equal(csv.lastSeq, 1);
  }
  assert.ok(first.bytes > 80 * MiB, `${first.bytes} bytes`);
  assert.ok(
    peak - before < first.bytes / 2,
    `the server's peak grew by ${((peak - before) / MiB).toFixed(0)} MiB over two exports`,
  );
});

/** Reads a CSV answer as it comes: its size, its line count, whether seq goes down, the last seq. */
async function readCsv(res: Response) {
  assert.equal(res.status, 200);
  let bytes = 0, lines = 0, header = "", carry = "", lastSeq = Infinity, ordered = true;
  const decoder = new TextDecoder();
  for await (const chunk of res.body!) {
    bytes += chunk.byteLength;
    const parts = (carry + decoder.decode(chunk, { stream: true })).split("\r\n");
    carry = parts.pop()!;
    for (const line of parts) {
      if (lines++ === 0) {
        header = line;
        continue;
      }
      const seq = Number(line.slice(0, line.indexOf(",")));
      if (!(seq < lastSeq)) ordered = false;
      lastSeq = seq;
    }
  }
  assert.equal(carry, "");
  return { bytes, lines, header, lastSeq, ordered };
}
