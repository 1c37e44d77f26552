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
  // A first small answer sets the route up; then two whole exports, back to back, measured together.
  await (await api.auditCsv({ action: "auth.sign_in", actor: "nobody" })).text();
  const before = memoryOf(pid).rss;
  resetPeak(pid);
  const first = await readCsv(await api.auditCsv());
  const second = await readCsv(await api.auditCsv());
  const peak = memoryOf(pid).peak;
  console.log(
    `audit.csv: ${total} entries, ${(first.bytes / MiB).toFixed(0)} MiB, twice; server RSS before ` +
      `${(before / MiB).toFixed(0)} MiB, peak while streaming ${(peak / MiB).toFixed(0)} MiB`,
  );
  for (const csv of [first, second]) {
    assert.match(csv.header, /^seq,_id,at,actor_type/);
    assert.equal(csv.lines, total + 1);
    assert.ok(csv.ordered, "entries are newest first");
    assert.equal(csv.lastSeq, 1);
  }
  assert.ok(first.bytes > 80 * MiB, `${first.bytes} bytes`);
  // Memory does not grow with what is streamed: 200 MiB sent, the peak grows by less than one export's size (what
  // the allocator keeps after the first export, measured 45-75 MiB, stays for the next: the second adds ~0-30).
  assert.ok(peak - before < first.bytes, `the server's peak grew by ${((peak - before) / MiB).toFixed(0)} MiB`);
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
