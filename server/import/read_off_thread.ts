/**
 * Reads a treatment import file in a worker, so the seconds it takes to parse and validate a large file never hold up
 * the event loop (device check-ins go on answering). One file at a time: a second import waits for the first one's
 * reading, so memory stays that of one file.
 */
import type { ImportedTreatment } from "../db/types/treatments.ts";
import type { ErrorCode } from "../../shared/schemas/common.ts";
import { ApiHttpError } from "../errors.ts";
import type { WorkerAnswer } from "./import_worker.ts";
import type { ParsedImport } from "./read_import_file.ts";
import type { ContentfulStatusCode } from "hono/utils/http-status";

let queue: Promise<unknown> = Promise.resolve();

/** The treatments of an import file, read and validated in a worker; rejects with import_failed like the reader. */
export function readImportFileOffThread(path: string): Promise<ImportedTreatment[]> {
  const read = queue.then(() => readInWorker(path));
  queue = read.catch(() => {});
  return read;
}

function readInWorker(path: string): Promise<ImportedTreatment[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL("./import_worker.ts", import.meta.url), { type: "module" });
    const fail = (why: string) => {
      worker.terminate();
      reject(new Error(`The import reader failed: ${why}`));
    };
    worker.onmessage = (e: MessageEvent<WorkerAnswer>) => {
      worker.terminate();
      const answer = e.data;
      if ("parsed" in answer) resolve(importedTreatments(answer.parsed));
      else if ("refused" in answer) {
        const { status, code, msg } = answer.refused;
        reject(new ApiHttpError(status as ContentfulStatusCode, code as ErrorCode, msg));
      } else fail(answer.failed);
    };
    worker.onerror = (e) => {
      e.preventDefault();
      fail(e.message);
    };
    worker.onmessageerror = () => fail("its answer could not be read");
    worker.postMessage({ path });
  });
}

/** The store's form: each treatment's phases a view into the one buffer of JSON (no copy, no string). */
function importedTreatments(p: ParsedImport): ImportedTreatment[] {
  const bytes = new Uint8Array(p.phases);
  const list: ImportedTreatment[] = p.names.map((name, i) => ({
    name,
    category: p.categories[i],
    use: p.uses[i],
    phasesJson: bytes.subarray(p.starts[i], p.ends[i]),
    images: [],
  }));
  for (const { treatment, mimeType, data } of p.images) list[treatment].images.push({ mimeType, data });
  return list;
}
