/**
 * Streams one multipart file field into a sink (a firmware put, or a temp file for an import) that writes and hashes
 * it off the main thread. Memory stays flat whatever the size: at most the sink's window is held. The caller commits
 * the sink (or aborts it) once it has checked the file; on any failure here the sink is aborted.
 */
import Busboy from "busboy";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { Context } from "hono";
import {
  ApiHttpError,
  badRequest,
  insufficientStorage,
  lengthRequired,
  requestTimeout,
  tooLarge,
  unsupported,
} from "../errors.ts";
import { newId } from "../../shared/ids.ts";
import { collectChunks } from "../../shared/collect_chunks.ts";
import { nameProblem } from "../../shared/schemas/common.ts";
import { escapeText, isCleanText, TEXT_RULE_MSG } from "../../shared/text_rule.ts";
import { NoSpaceError, startFileWrite } from "../files/file_write.ts";
import { FilesUnavailableError } from "../files/firmware_files.ts";
import { CheckInterruptedError, type StreamCheck } from "../files/stream_check.ts";

/** Where an upload's bytes go: written and hashed as they stream; aborted (nothing left) on failure. */
export interface UploadSink {
  write(chunk: Uint8Array): Promise<void> | null;
  /** The size and digests (sha1 and md5 where the sink computes them: firmware files). */
  finish(): Promise<{ size: number; sha256: string; sha1?: string; md5?: string }>;
  abort(): Promise<void>;
}

export interface ReceivedFile<S extends UploadSink> {
  /** The client's file name reduced to its base name (no path ever reaches the file system). */
  name: string;
  size: number;
  sha256: string;
  sha1?: string;
  md5?: string;
  /** Finished: the caller commits it or aborts it. */
  sink: S;
  /** The text fields named in ReceiveOptions.fields that were sent (before the file). */
  fields: Record<string, string>;
}

export interface ReceiveOptions<S extends UploadSink> {
  /** Opens the sink once the file's name has passed checkName. */
  sink: () => S;
  maxBytes: number;
  /** Name of the form field holding the file. */
  field?: string;
  /** Refuse by name before any byte is written (throw an ApiHttpError). */
  checkName?: (name: string) => void;
  /** Text fields the caller reads (e.g. a signature): each must come before the file part, at most once. */
  fields?: readonly string[];
  /** Refuse by the fields sent before the file, before any byte is written (throw an ApiHttpError). */
  checkFields?: (fields: Record<string, string>) => void;
  /** Required leading bytes, checked as soon as they arrive. */
  magic?: readonly number[];
  /** The error for a missing magic (default 415). */
  magicError?: (name: string) => ApiHttpError;
  /** Text for the limit in the 413 message, e.g. "MAX_FIRMWARE_BYTES". */
  limitName?: string;
  /** A body that sends nothing for this long is aborted (408), its partial file removed. */
  idleMs: number;
  /** Counts the body's bytes as they arrive (metrics). */
  received?: { inc(n: number): void };
  /**
   * A check of the content while it streams: fed every chunk written (its backpressure slows the upload), its
   * verdict awaited before the file is handed over; a refusal (at the end or as soon as it is known) is `error`.
   */
  verify?: { start: () => StreamCheck; error: (name: string, problem: string) => ApiHttpError };
  /** The content rules that depend on the file's name (its format), chosen once the name has passed checkName. */
  forName?: (name: string) => ContentRules;
}

/** The options that say what the content must be. */
export type ContentRules = Pick<ReceiveOptions<UploadSink>, "magic" | "magicError" | "verify">;

/** A temp file in `tmpDir` as an upload's sink (imports read it by its path); abort() removes it. */
export function tempFileSink(tmpDir: string): UploadSink & { path: string } {
  const path = join(tmpDir, `${newId()}.part`);
  const writer = startFileWrite(path);
  return {
    path,
    write: (chunk) => writer.write(chunk),
    finish: () => writer.finish(),
    async abort() {
      await writer.close();
      await rm(path, { force: true });
    },
  };
}

/** The answer to a write that found no room: nothing is kept, the server stays up. */
export const noRoom = () =>
  insufficientStorage("The server has no room left to store the file; nothing was stored. Try again later.");

/** The content check was stopped by a signal (not the file's fault, so never 422): nothing is kept, send it again. */
const checkInterrupted = () =>
  new ApiHttpError(
    503,
    "unavailable",
    "The file's check was interrupted (the server may be stopping) and nothing was stored; send it again in a moment.",
  );

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

export async function receiveUpload<S extends UploadSink>(
  c: Context,
  opts: ReceiveOptions<S>,
): Promise<ReceivedFile<S>> {
  const field = opts.field ?? "file";
  const type = c.req.header("content-type") ?? "";
  if (!/^multipart\/form-data\b/i.test(type)) {
    throw unsupported(`The body must be multipart/form-data with a field '${field}'.`);
  }
  const limitText = `${opts.maxBytes} bytes${opts.limitName ? ` (${opts.limitName})` : ""}`;
  const lengthHeader = c.req.header("content-length");
  const declared = lengthHeader === undefined ? NaN : Number(lengthHeader);
  // A chunked body is refused: Deno's server reads one without backpressure (docs/DECISIONS.md, "Firmware store and
  // the upload pipeline"), so it would pile up in memory while the file is written.
  if (!Number.isSafeInteger(declared) || declared < 0) {
    throw lengthRequired("An upload must declare its Content-Length (a chunked body is not accepted).");
  }
  if (declared > opts.maxBytes + OVERHEAD) throw tooLarge(`The file is larger than the limit of ${limitText}.`);
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

  let fileSeen = false;
  const fields: Record<string, string> = {};
  let settled = false;
  let file: ReceivedFile<S> | null = null;
  let sink = null as S | null; // set in a callback: not narrowed to null below
  let check = null as StreamCheck | null;
  let verifying: Promise<void> | undefined;

  let failUpload: (err: unknown) => void = () => {};
  const result = new Promise<ReceivedFile<S>>((resolve, reject) => {
    const fail = failUpload = (err: unknown) => {
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
        opts.checkFields?.(fields);
      } catch (err) {
        stream.resume();
        fail(err);
        return;
      }
      const rules = { ...opts, ...opts.forName?.(clientName) };
      const magic = rules.magic ?? [];
      const magicError = rules.magicError ??
        ((name: string) => unsupported(`${name} is not a valid file: it does not start with the expected signature.`));
      let head: number[] = [];
      let stopped = false;
      const out = sink = opts.sink();
      const stop = (err: unknown) => {
        stopped = true;
        stream.resume();
        fail(err);
      };
      const verify = rules.verify;
      if (verify) {
        check = verify.start();
        check.refused.then((problem) => stop(verify.error(clientName, problem)), stop);
      }
      stream.on("limit", () => stop(tooLarge(`The file is larger than the limit of ${limitText}.`)));
      stream.on("data", (chunk: Buffer) => {
        if (stopped || settled) return;
        if (head.length < magic.length) {
          head = head.concat(Array.from(chunk.subarray(0, magic.length - head.length)));
          if (head.some((b, i) => b !== magic[i])) return stop(magicError(clientName));
        }
        let written, checked;
        try {
          written = out.write(chunk);
          checked = check?.write(chunk);
        } catch (err) {
          return stop(err);
        }
        if (written || checked) {
          stream.pause();
          Promise.all([written, checked]).then(() => stream.resume(), stop);
        }
      });
      stream.on("error", (err: unknown) => stop(err));
      stream.on("end", () => {
        if (stopped) return;
        if (head.length < magic.length) return stop(magicError(clientName));
        verifying = Promise.all([out.finish(), check?.finish() ?? null]).then(([stored, problem]) => {
          if (problem !== null && verify) throw verify.error(clientName, problem);
          file = { name: clientName, ...stored, sink: out, fields };
        }).catch(fail);
      });
    });
    // Text fields are not stored, but the text rule holds for every part (docs/REQUIREMENTS.md §17).
    bb.on("field", (name: string, value: string) => {
      if (!isCleanText(name) || !isCleanText(value)) {
        return fail(badRequest(`${escapeText(name).slice(0, 64)}: ${TEXT_RULE_MSG}.`));
      }
      if (!opts.fields?.includes(name)) return;
      if (fileSeen) return fail(badRequest(`${name}: send this field before the file '${field}'.`));
      if (Object.hasOwn(fields, name)) return fail(badRequest(`${name}: send this field once.`));
      fields[name] = value;
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
  const idle = requestTimeout(
    `The upload sent nothing for ${Math.round(opts.idleMs / 1000)} s and was aborted; nothing was stored.`,
  );
  const pump = (async () => {
    try {
      while (!settled) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const stalled = new Promise<never>((_, reject) => timer = setTimeout(() => reject(idle), opts.idleMs));
        const { value, done } = await Promise.race([reader.read(), stalled]).finally(() => clearTimeout(timer));
        if (done) break;
        if (!bb.write(value)) await new Promise((r) => bb.once("drain", r));
        collectChunks(value.byteLength);
        opts.received?.inc(value.byteLength);
      }
      if (!settled) bb.end();
    } catch (err) {
      if (err === idle) return failUpload(idle);
      bb.destroy(new Error("aborted"));
    }
  })();

  try {
    return await result;
  } catch (err) {
    check?.abort();
    await reader.cancel().catch(() => {});
    await pump;
    await sink?.abort();
    if (err instanceof NoSpaceError) throw noRoom();
    if (err instanceof CheckInterruptedError) throw checkInterrupted();
    if (err instanceof ApiHttpError || err instanceof FilesUnavailableError) throw err;
    throw badRequest("The upload was interrupted or malformed.");
  }
}
