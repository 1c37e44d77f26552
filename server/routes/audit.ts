import { Hono } from "hono";
import { routes } from "../../shared/routes/mod.ts";
import { AUDIT_CSV_COLUMNS } from "../../shared/schemas/audit.ts";
import type { AppContext, AppEnv } from "../context.ts";
import { auditCsvLine } from "../db/rules/audit.ts";
import { queryOf } from "../route_table.ts";
import { ReadCache } from "../lib/read_cache.ts";
import { collectChunks } from "../../shared/collect_chunks.ts";

/**
 * Entries read per batch of the CSV export: what the stream holds at a time, whatever the trail's length. Small
 * chunks (~100 KB): with 500 entries a chunk the allocator kept twice as much after an export (measured).
 */
const CSV_BATCH = 100;

/**
 * The lines as one UTF-8 chunk, encoded line by line into one buffer: never one long string (a string of a few
 * hundred KB lives in V8's large-object space, freed only by a full collection, and a long export piled them up).
 */
function encodeLines(lines: string[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(lines.reduce((n, l) => n + l.length * 3, 0));
  let at = 0;
  for (const line of lines) at += encoder.encodeInto(line, out.subarray(at)).written;
  return out.subarray(0, at);
}

const encoder = new TextEncoder();

/** GET audit (a page, newest first) and GET audit.csv (every matching entry, streamed). Nothing edits an entry. */
export function auditRoutes(ctx: AppContext) {
  const { audit } = ctx.stores;
  // Pages as JSON, kept while the trail has as many entries (it only grows: a new entry is a new version).
  const pages = new ReadCache(() => audit.count());
  return new Hono<AppEnv>()
    .get("/audit", async (c) => {
      const { page, rowsPerPage, ...filter } = queryOf(routes.listAudit, c);
      const key = JSON.stringify([page, rowsPerPage, filter]);
      const json = await pages.get(key, async () => {
        const { data, total, exact } = await audit.list(filter, page, rowsPerPage);
        return { data, total, exact, page, per_page: rowsPerPage };
      });
      return c.body(json, 200, { "Content-Type": "application/json" });
    })
    .get("/audit.csv", async (c) => {
      const filter = queryOf(routes.auditCsv, c);
      // The first batch is read here, so a failure to start is still an error answer, not a cut stream.
      let batch = await audit.before(filter, null, CSV_BATCH);
      let header = true;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          try {
            if (header) {
              header = false;
              controller.enqueue(encoder.encode(AUDIT_CSV_COLUMNS.join(",") + "\r\n"));
              return;
            }
            if (batch.length === 0) {
              controller.close();
              return;
            }
            const bytes = encodeLines(batch.map(auditCsvLine));
            const last = batch.length < CSV_BATCH ? null : batch[batch.length - 1].seq;
            batch = last === null ? [] : await audit.before(filter, last, CSV_BATCH);
            controller.enqueue(bytes);
            collectChunks(bytes.byteLength);
          } catch (err) {
            ctx.log(`ERROR streaming the audit CSV: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
            controller.error(err);
          }
        },
      }, { highWaterMark: 0 });
      const stamp = new Date().toISOString().slice(0, 19).replaceAll(":", "-");
      return c.body(body, 200, {
        "Content-Type": "text/csv; charset=UTF-8",
        "Content-Disposition": `attachment; filename="audit-${stamp}.csv"`,
      });
    });
}
