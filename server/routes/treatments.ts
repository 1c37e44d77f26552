import * as metrics from "../metrics.ts";
import { routes } from "../../shared/routes/mod.ts";
import { SQLITE_MAGIC, TREATMENT_IMPORT_EXTENSION } from "../../shared/schemas/treatment.ts";
import type { AppContext } from "../context.ts";
import { notFound, unsupported } from "../errors.ts";
import { importFailed } from "../import/open_import_file.ts";
import { readImportFileOffThread } from "../import/read_off_thread.ts";
import { receiveUpload, tempFileSink } from "../lib/upload.ts";
import { collectChunks } from "../../shared/collect_chunks.ts";
import { type Api, mount } from "../mount.ts";

export function treatmentsRoutes(api: Api, ctx: AppContext) {
  const { treatments } = ctx.stores;
  mount(api, routes.listTreatments, async (c) => {
    // Streamed as the store reads it; the first chunk is read here, so a failure to start is still a 500.
    const chunks = treatments.listJsonChunks()[Symbol.asyncIterator]();
    const first = await chunks.next();
    return c.body(streamOf(first, chunks, ctx.log), 200, { "Content-Type": "application/json; charset=UTF-8" });
  });
  // Every treatment without its phases (lists, counts and pickers of the console).
  mount(api, routes.listTreatmentSummaries, async (c) => c.json(await treatments.listSummaries()));
  mount(api, routes.importTreatments, async (c) => {
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
  });
  mount(api, routes.getTreatment, async (c, { params: { id } }) => {
    const treatment = await treatments.get(id);
    if (!treatment) throw notFound(`No treatment with id ${id}.`);
    return c.json(treatment);
  });
  mount(api, routes.treatmentImage, async (c, { params: { id } }) => {
    const image = await treatments.image(id);
    if (!image) throw notFound(`No treatment image with id ${id}.`);
    return c.body(image.data, 200, { ...IMAGE_HEADERS, "Content-Type": image.mimeType });
  });
}

/** Imported images are untrusted bytes: served with their vetted type, never sniffed, sandboxed, never cached. */
const IMAGE_HEADERS = {
  "Cache-Control": "no-store",
  "Content-Security-Policy": "sandbox; default-src 'none'; frame-ancestors 'none'",
  "X-Content-Type-Options": "nosniff",
};

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
