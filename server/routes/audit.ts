import { routes } from "../../shared/routes/mod.ts";
import { AUDIT_CSV_COLUMNS } from "../../shared/schemas/audit.ts";
import type { AppContext } from "../context.ts";
import type { Stores } from "../db/stores.ts";
import type { AuditEntry } from "../../shared/schemas/audit.ts";
import { auditCsvLine } from "../db/rules/audit.ts";
import { type Api, mount } from "../mount.ts";
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
export function auditRoutes(api: Api, ctx: AppContext) {
  const { audit } = ctx.stores;
  // Pages as JSON, kept while the trail has as many entries (it only grows: a new entry is a new version).
  const pages = new ReadCache(() => audit.count());
  mount(api, routes.listAudit, async (c, { query }) => {
    const { page, rowsPerPage, ...filter } = query;
    const key = JSON.stringify([page, rowsPerPage, filter]);
    const json = await pages.get(key, async () => {
      const { data, total, exact } = await audit.list(filter, page, rowsPerPage);
      return { data, total, exact, page, per_page: rowsPerPage, names: await namesFor(ctx.stores, data) };
    });
    return c.body(json, 200, { "Content-Type": "application/json" });
  });
  mount(api, routes.auditCsv, async (c, { query: filter }) => {
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

/** The detail keys whose values are ids, by what they name. */
const ID_KEYS: Record<string, "firmware" | "productType" | "module" | "treatment"> = {
  firmware: "firmware",
  defaultFirmware: "firmware",
  firmwareId: "firmware",
  productTypeId: "productType",
  moduleIds: "module",
  additionalTreatmentIds: "treatment",
  treatmentIds: "treatment",
};
/** At most this many ids are looked up one by one per page (a page of 100 bulk entries names few). */
const MAX_LOOKUPS = 200;

/**
 * The names of what a page's details refer to by id (docs/DECISIONS.md, "Records that cannot lie"): read at the time
 * of the page, which the page cache keeps only while the trail has as many entries (a rename is itself an entry); a
 * firmware or product type deleted since is named by its own newest entry.
 */
async function namesFor(stores: Stores, entries: AuditEntry[]): Promise<Record<string, string>> {
  const wanted = {
    firmware: new Set<string>(),
    productType: new Set<string>(),
    module: new Set<string>(),
    treatment: new Set<string>(),
  };
  const walk = (v: unknown, kind?: keyof typeof wanted) => {
    if (typeof v === "string") {
      if (kind) wanted[kind].add(v);
    } else if (Array.isArray(v)) { for (const x of v) walk(x, kind); }
    else if (v !== null && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) walk(x, ID_KEYS[k]);
    }
  };
  for (const e of entries) walk(e.details);
  const names: Record<string, string> = {};
  // A deleted firmware or product type is still named by its own entries' targets.
  for (const e of entries) {
    if (e.target && (e.target.type === "firmware" || e.target.type === "product_type") && e.target.name) {
      names[e.target.id] = e.target.name;
    }
  }
  let lookups = 0;
  for (const id of wanted.firmware) {
    if (names[id] || lookups++ >= MAX_LOOKUPS) continue;
    const f = await stores.firmwares.get(id);
    if (f) names[id] = f.name;
  }
  if (wanted.productType.size || wanted.module.size) {
    for (const pt of await stores.productTypes.list()) {
      names[pt._id] = pt.name;
      for (const m of pt.modules) names[m._id] = m.name;
    }
  }
  for (const id of wanted.treatment) {
    if (names[id] || lookups++ >= MAX_LOOKUPS) continue;
    const t = await stores.treatments.get(id);
    if (t) names[id] = t.name;
  }
  // Deleted since: the name its own entries gave it (its upload, creation or deletion; one indexed read each).
  for (const [kind, targetType] of [["firmware", "firmware"], ["productType", "product_type"]] as const) {
    for (const id of wanted[kind]) {
      if (names[id] || lookups++ >= MAX_LOOKUPS) continue;
      const [own] = await stores.audit.before({ targetType, targetId: id }, null, 1);
      if (own?.target?.name) names[id] = own.target.name;
    }
  }
  return names;
}
