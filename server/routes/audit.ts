import { Hono } from "hono";
import { routes } from "../../shared/routes/mod.ts";
import { AUDIT_CSV_COLUMNS } from "../../shared/schemas/audit.ts";
import type { AppContext, AppEnv } from "../context.ts";
import { csvLine } from "../db/rules/audit.ts";
import { queryOf } from "../route_table.ts";

/** Entries read per batch of the CSV export: what the stream holds at a time, whatever the trail's length. */
const CSV_BATCH = 500;

/** GET audit (a page, newest first) and GET audit.csv (every matching entry, streamed). Nothing edits an entry. */
export function auditRoutes(ctx: AppContext) {
  const { audit } = ctx.stores;
  return new Hono<AppEnv>()
    .get("/audit", async (c) => {
      const { page, rowsPerPage, ...filter } = queryOf(routes.listAudit, c);
      const { data, total, exact } = await audit.list(filter, page, rowsPerPage);
      return c.json({ data, total, exact, page, per_page: rowsPerPage });
    })
    .get("/audit.csv", async (c) => {
      const filter = queryOf(routes.auditCsv, c);
      const encoder = new TextEncoder();
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
            const text = batch.map(csvLine).join("");
            const last = batch.length < CSV_BATCH ? null : batch[batch.length - 1].seq;
            batch = last === null ? [] : await audit.before(filter, last, CSV_BATCH);
            controller.enqueue(encoder.encode(text));
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
