/**
 * Streams one multipart file field to a temp file on disk, hashing it on the way.
 * Memory stays flat whatever the size: nothing is buffered beyond stream chunks.
 * The caller moves the temp file into place (or discards it) once it has checked it.
 */
import Busboy from "busboy";
import { createHash } from "node:crypto";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { Context } from "hono";
import { ApiHttpError, badRequest, tooLarge, unsupported } from "../errors.ts";
import { newId } from "../../shared/ids.ts";
import { collectChunks } from "../../shared/collect_chunks.ts";
import { nameProblem } from "../../shared/schemas/common.ts";
import type { StreamCheck } from "./stream_check.ts";

export interface ReceivedFile {
  /** Temp file under the tmp dir; remove it with discard() unless renamed into place. */
  path: string;
  /** The client's file name reduced to its base name (no path ever reaches the file system). */
  name: string;
  size: number;
  sha256: string;
}

export interface ReceiveOptions {
  tmpDir: string;
  maxBytes: number;
  /** Name of the form field holding the file. */
  field?: string;
  /** Refuse by name before any byte is written (throw an ApiHttpError). */
  checkName?: (name: string) => void;
  /** Required leading bytes, checked as soon as they arrive. */
  magic?: readonly number[];
  /** The error for a missing magic (default 415). */
  magicError?: (name: string) => ApiHttpError;
  /** Text for the limit in the 413 message, e.g. "MAX_FIRMWARE_BYTES". */
  limitName?: string;
  /**
   * A check of the content while it streams: fed every chunk written (its backpressure slows the upload), its
   * verdict awaited before the file is handed over; a refusal (at the end or as soon as it is known) is `error`.
   */
  verify?: { start: () => StreamCheck; error: (name: string, problem: string) => ApiHttpError };
}

/** Multipart overhead allowed beyond maxBytes before a declared Content-Length is refused outright. */
const OVERHEAD = 64 * 1024;

/** The base name of a client-supplied file name; refuses names that are empty or not readable text (nameProblem). */
export function baseName(raw: string): string {
  const name = raw.split(/[\\/]/).pop()!.trim();
  if (!name || name === "." || name === ".." || nameProblem(name) !== null || name.length > 255) {
    throw badRequest("file: the file name is empty or not allowed.");
  }
  return name;
}

export async function discard(file: { path: string } | undefined | null): Promise<void> {
  if (file) await rm(file.path, { force: true });
}

export async function receiveUpload(c: Context, opts: ReceiveOptions): Promise<ReceivedFile> {
  const field = opts.field ?? "file";
  const type = c.req.header("content-type") ?? "";
  if (!/^multipart\/form-data\b/i.test(type)) {
    throw unsupported(`The body must be multipart/form-data with a field '${field}'.`);
  }
  const limitText = `${opts.maxBytes} bytes${opts.limitName ? ` (${opts.limitName})` : ""}`;
  const declared = Number(c.req.header("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > opts.maxBytes + OVERHEAD) {
    throw tooLarge(`The file is larger than the limit of ${limitText}.`);
  }
  const body = c.req.raw.body;
  if (!body) throw badRequest(`The multipart field '${field}' is missing.`);

  let bb: Busboy.Busboy;
  try {
    bb = Busboy({
      headers: { "content-type": type },
      defParamCharset: "utf8", // browsers and the shared client send file names as UTF-8
      // busboy reports "limit" on reaching fileSize, so a file of exactly maxBytes needs one more byte of room;
      // "partsLimit" likewise on reaching parts: 41 lets 40 parts through.
      limits: { files: 1, fileSize: opts.maxBytes + 1, fields: 20, fieldSize: 4096, parts: 41, headerPairs: 100 },
    });
  } catch {
    throw badRequest("The multipart body is malformed (missing boundary).");
  }

  const tmpPath = join(opts.tmpDir, `${newId()}.part`);
  let fileSeen = false;
  let settled = false;
  let file: ReceivedFile | null = null;
  let check = null as StreamCheck | null; // set in a callback: not narrowed to null below
  let verifying: Promise<void> | undefined;
  const magicError = opts.magicError ??
    ((name: string) => unsupported(`${name} is not a valid file: it does not start with the expected signature.`));

  const result = new Promise<ReceivedFile>((resolve, reject) => {
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      reject(err);
    };

    bb.on("file", (name, stream, info) => {
      stream.on("error", () => {}); // reported through fail(); never let it go uncaught
      if (name !== field || fileSeen) {
        stream.resume();
        fail(
          badRequest(
            fileSeen ? "Send exactly one file per request." : `Unexpected file field '${name}'; use '${field}'.`,
          ),
        );
        return;
      }
      fileSeen = true;
      let clientName: string;
      try {
        clientName = baseName(info.filename ?? "");
        opts.checkName?.(clientName);
      } catch (err) {
        stream.resume();
        fail(err);
        return;
      }
      const hash = createHash("sha256");
      const magic = opts.magic ?? [];
      let head: number[] = [];
      let size = 0;
      let out: Deno.FsFile | null = Deno.openSync(tmpPath, { write: true, createNew: true, mode: 0o600 });
      const stop = (err: unknown) => {
        out?.close();
        out = null;
        stream.resume();
        fail(err);
      };
      const verify = opts.verify;
      if (verify) {
        check = verify.start();
        check.refused.then((problem) => stop(verify.error(clientName, problem)));
      }
      stream.on("limit", () => stop(tooLarge(`The file is larger than the limit of ${limitText}.`)));
      stream.on("data", (chunk: Buffer) => {
        if (!out) return;
        if (head.length < magic.length) {
          head = head.concat(Array.from(chunk.subarray(0, magic.length - head.length)));
          if (head.some((b, i) => b !== magic[i])) return stop(magicError(clientName));
        }
        size += chunk.length;
        hash.update(chunk);
        // Synchronous writes of stream-sized chunks: simple backpressure, and fast into the page cache.
        for (let off = 0; off < chunk.length;) off += out.writeSync(chunk.subarray(off));
        const wait = check?.write(chunk);
        if (wait) {
          stream.pause();
          wait.then(() => stream.resume());
        }
      });
      stream.on("error", (err: unknown) => stop(err));
      stream.on("end", () => {
        if (!out) return;
        if (head.length < magic.length) return stop(magicError(clientName));
        out.close();
        out = null;
        const received = { path: tmpPath, name: clientName, size, sha256: hash.digest("hex") };
        if (!check || !verify) {
          file = received;
          return;
        }
        verifying = check.finish().then((problem) => {
          if (problem !== null) throw verify.error(clientName, problem);
          file = received;
        }).catch(fail);
      });
    });
    bb.on("filesLimit", () => fail(badRequest("Send exactly one file per request.")));
    bb.on("partsLimit", () => fail(badRequest("The multipart body has too many parts (at most 40).")));
    bb.on("error", () => fail(badRequest("The multipart body is malformed or truncated.")));
    bb.on("close", async () => {
      await verifying;
      if (!fileSeen) return fail(badRequest(`The multipart field '${field}' is missing.`));
      if (!file) return fail(badRequest("The multipart body is truncated."));
      if (!settled) {
        settled = true;
        resolve(file);
      }
    });
  });

  const reader = body.getReader();
  const pump = (async () => {
    try {
      while (!settled) {
        const { value, done } = await reader.read();
        if (done) break;
        if (!bb.write(value)) await new Promise((r) => bb.once("drain", r));
        collectChunks(value.byteLength);
      }
      if (!settled) bb.end();
    } catch {
      bb.destroy(new Error("aborted"));
    }
  })();

  try {
    return await result;
  } catch (err) {
    check?.abort();
    await reader.cancel().catch(() => {});
    await pump;
    await rm(tmpPath, { force: true });
    if (err instanceof ApiHttpError) throw err;
    throw badRequest("The upload was interrupted or malformed.");
  }
}
