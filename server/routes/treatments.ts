import * as metrics from "../metrics.ts";
import { Hono } from "hono";
import { routes } from "../../shared/routes/mod.ts";
import { SQLITE_MAGIC, TREATMENT_IMPORT_EXTENSION } from "../../shared/schemas/treatment.ts";
import type { AppContext, AppEnv } from "../context.ts";
import { notFound, unsupported } from "../errors.ts";
import { importFailed } from "../import/open_import_file.ts";
import { readImportFileOffThread } from "../import/read_off_thread.ts";
import { receiveUpload, tempFileSink } from "../lib/upload.ts";
import { collectChunks } from "../../shared/collect_chunks.ts";
import { paramsOf } from "../route_table.ts";

export function treatmentsRoutes(ctx: AppContext) {
  const { treatments } = ctx.stores;
  return new Hono<AppEnv>()
    .get("/", async (c) => {
      // Streamed as the store reads it; the first chunk is read here, so a failure to start is still a 500.
      const chunks = treatments.listJsonChunks()[Symbol.asyncIterator]();
      const first = await chunks.next();
      return c.body(streamOf(first, chunks, ctx.log), 200, { "Content-Type": "application/json; charset=UTF-8" });
    })
    .post("/import", async (c) => {
      const file = await receiveUpload(c, {
        sink: () => tempFileSink(ctx.paths.tmp),
        idleMs: ctx.config.BODY_IDLE_SECONDS * 1000,
        received: metrics.uploadBytes.labels({ kind: "import" }),
        maxBytes: ctx.config.MAX_IMPORT_BYTES,
        limitName: "MAX_IMPORT_BYTES",
        checkName: (name) => {
          if (!name.toLowerCase().endsWith(TREATMENT_IMPORT_EXTENSION)) {
            throw unsupported(`${name} is not a treatment import: the name must end in ${TREATMENT_IMPORT_EXTENSION}.`);
          }
        },
        magic: SQLITE_MAGIC,
        magicError: (name) => importFailed(`${name} is not an SQLite database.`),
      });
      try {
        // The file is read and validated whole first (in a worker); then the store writes it, visible all at once.
        const result = await treatments.import(await readImportFileOffThread(file.sink.path), {
          name: file.name,
          size: file.size,
          sha256: file.sha256,
        });
        ctx.log(`Imported treatments from ${file.name}: ${result.created} created, ${result.updated} updated.`);
        return c.json(result);
      } finally {
        await file.sink.abort();
      }
    })
    .get("/:id", async (c) => {
      const { id } = paramsOf(routes.getTreatment, c);
      const treatment = await treatments.get(id);
      if (!treatment) throw notFound(`No treatment with id ${id}.`);
      return c.json(treatment);
    });
}

/** A response body that pulls one chunk at a time from the iterator (its first result already read). */
function streamOf(
  first: IteratorResult<Uint8Array<ArrayBuffer>>,
  rest: AsyncIterator<Uint8Array<ArrayBuffer>>,
  log: (line: string) => void,
): ReadableStream<Uint8Array<ArrayBuffer>> {
  let next: IteratorResult<Uint8Array<ArrayBuffer>> | null = first;
  return new ReadableStream({
    async pull(controller) {
      try {
        const result = next ?? await rest.next();
        next = null;
        if (result.done) controller.close();
        else {
          controller.enqueue(result.value);
          collectChunks(result.value.byteLength);
        }
      } catch (err) {
        log(`ERROR streaming the treatment list: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
        controller.error(err);
      }
    },
    async cancel() {
      await rest.return?.();
    },
  }, { highWaterMark: 0 });
}
