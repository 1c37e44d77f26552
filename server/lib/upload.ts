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
import { type CheckInput, CheckInterruptedError, type LentInput, type StreamCheck } from "../files/stream_check.ts";

/** Where an upload's bytes go: written and hashed as they stream; aborted (nothing left) on failure. */
export interface UploadSink {
  write(chunk: Uint8Array): Promise<void> | null;
  /** Where supported: passes every byte to a content check's input itself (see CheckInput). */
  feed?(input: CheckInput): void;
  /** Where supported: lends every byte to a content check from the sink's own buffers (see LentInput). */
  lendTo?(input: LentInput): void;
  /** True when write() is done with the chunk (copied) once it returns null or its promise settles (FirmwarePut). */
  readonly copies?: boolean;
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
  verify?: {
    /** `fedByWriter`: the sink can feed the check's input from its own thread (UploadSink.feed). */
    start: (how: { fedByWriter: boolean }) => StreamCheck;
    error: (name: string, problem: string) => ApiHttpError;
  };
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

/** The largest read of a raw body into its reused buffer (Deno answers a 1 MiB read with ~300 KiB on loopback). */
const READ_BYTES = 1 << 20;

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
      let stopped = false;
      const stop = (err: unknown) => {
        stopped = true;
        stream.resume();
        fail(err);
      };
      const intake = openIntake(opts, clientName, fields, stop);
      sink = intake.sink;
      check = intake.check;
      stream.on("limit", () => stop(tooLarge(`The file is larger than the limit of ${limitText}.`)));
      stream.on("data", (chunk: Buffer) => {
        if (stopped || settled) return;
        const wait = intake.write(chunk);
        if (wait) {
          stream.pause();
          wait.then(() => stream.resume(), stop);
        }
      });
      stream.on("error", (err: unknown) => stop(err));
      stream.on("end", () => {
        if (stopped) return;
        verifying = intake.finish().then((done) => void (file = done)).catch(fail);
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
  const read = idleReader(() => reader.read(), opts.idleMs);
  const pump = (async () => {
    try {
      while (!settled) {
        const { value, done } = await read();
        if (done) break;
        if (!bb.write(value)) await new Promise((r) => bb.once("drain", r));
        collectChunks(value.byteLength);
        opts.received?.inc(value.byteLength);
      }
      if (!settled) bb.end();
    } catch (err) {
      if (err instanceof ApiHttpError && err.status === 408) return failUpload(err);
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
    throw answerFor(err);
  }
}

/**
 * Streams a raw request body (application/octet-stream: the file itself, no multipart framing) into a sink, with the
 * same checks as receiveUpload: the name (from the path) checked before a byte is written, the text fields read from
 * the headers `fieldHeaders` names, the size limit, the content rules and the idle timeout. Cheaper per byte than the
 * multipart form: no boundary search over the body (docs/DECISIONS.md, "Uploads near the hashing floor").
 */
export async function receiveRawUpload<S extends UploadSink>(
  c: Context,
  rawName: string,
  fieldHeaders: Readonly<Record<string, string>>,
  opts: ReceiveOptions<S>,
): Promise<ReceivedFile<S>> {
  // No Content-Type is taken as octet-stream (RFC 9110 §8.3): what `curl -T` sends.
  const type = c.req.header("content-type");
  if (type !== undefined && !/^application\/octet-stream\s*(;|$)/i.test(type)) {
    throw unsupported("The body must be the file itself, sent as application/octet-stream.");
  }
  const limitText = `${opts.maxBytes} bytes${opts.limitName ? ` (${opts.limitName})` : ""}`;
  const lengthHeader = c.req.header("content-length");
  const declared = lengthHeader === undefined ? NaN : Number(lengthHeader);
  if (!Number.isSafeInteger(declared) || declared < 0) {
    throw lengthRequired("An upload must declare its Content-Length (a chunked body is not accepted).");
  }
  if (declared > opts.maxBytes) throw tooLarge(`The file is larger than the limit of ${limitText}.`);
  const clientName = baseName(rawName);
  opts.checkName?.(clientName);
  const fields: Record<string, string> = {};
  for (const name of opts.fields ?? []) {
    const header = fieldHeaders[name];
    const value = header === undefined ? undefined : c.req.header(header);
    if (value === undefined) continue;
    if (!isCleanText(value)) throw badRequest(`${header}: ${TEXT_RULE_MSG}.`);
    fields[name] = value;
  }
  opts.checkFields?.(fields);

  let failure: unknown = null;
  let reader: ReadableStreamDefaultReader<Uint8Array> | ReadableStreamBYOBReader | undefined;
  // A refusal by the intake (its magic, the content check) ends a wait for the client: the read answers done. (Not a
  // race against a promise that lives as long as the upload: each race would keep its chunk reachable.)
  const stop = (err: unknown) => {
    if (failure !== null) return;
    failure = err;
    reader?.cancel().catch(() => {});
  };
  const intake = openIntake(opts, clientName, fields, stop);
  const body = c.req.raw.body;
  // Where nothing keeps a chunk past write() (the sink copies it, no check holds it), the body is read into one reused
  // buffer: no 64 KiB buffer allocated per read, none left for the collector, reads of up to READ_BYTES
  // (docs/DECISIONS.md, "Uploads to disk near the hashing floor").
  let reuse = body !== null && intake.sink.copies === true &&
    (!intake.check || intake.handedOver || intake.check.copies === true);
  let byob: ReadableStreamBYOBReader | undefined;
  try {
    if (reuse) byob = body!.getReader({ mode: "byob" });
  } catch { // not a byte stream (a body built in memory)
    reuse = false;
  }
  let next: (() => Promise<ReadableStreamReadResult<Uint8Array>>) | undefined;
  if (byob) {
    reader = byob;
    let buffer = new ArrayBuffer(READ_BYTES);
    next = async () => {
      const result = await byob!.read(new Uint8Array(buffer));
      if (result.value) buffer = result.value.buffer as ArrayBuffer; // the read moved the buffer into its answer
      return result.done ? { done: true, value: undefined } : { done: false, value: result.value! };
    };
  } else if (body) {
    const plain = body.getReader();
    reader = plain;
    next = () => plain.read();
  }
  try {
    if (next) {
      const read = idleReader(next, opts.idleMs);
      let total = 0;
      while (failure === null) {
        const { value, done } = await read();
        if (done || failure !== null) break;
        total += value.byteLength;
        if (total > opts.maxBytes) throw tooLarge(`The file is larger than the limit of ${limitText}.`);
        if (!reuse) collectChunks(value.byteLength);
        opts.received?.inc(value.byteLength);
        const wait = intake.write(value);
        if (wait) await wait;
      }
      if (failure === null && total !== declared) throw badRequest("The upload was interrupted or malformed.");
    }
    if (failure !== null) throw failure;
    return await intake.finish();
  } catch (err) {
    intake.check?.abort();
    await reader?.cancel().catch(() => {});
    await intake.sink.abort();
    throw answerFor(err);
  }
}

/** What a failed upload answers: its own error, or the general one. */
function answerFor(err: unknown): unknown {
  if (err instanceof NoSpaceError) return noRoom();
  if (err instanceof CheckInterruptedError) return checkInterrupted();
  if (err instanceof ApiHttpError || err instanceof FilesUnavailableError) return err;
  return badRequest("The upload was interrupted or malformed.");
}

/** Reads the next chunk, or rejects with 408 when the client sends nothing for `idleMs`. */
function idleReader(next: () => Promise<ReadableStreamReadResult<Uint8Array>>, idleMs: number) {
  const idle = requestTimeout(
    `The upload sent nothing for ${Math.round(idleMs / 1000)} s and was aborted; nothing was stored.`,
  );
  return async () => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stalled = new Promise<never>((_, reject) => timer = setTimeout(() => reject(idle), idleMs));
    return await Promise.race([next(), stalled]).finally(() => clearTimeout(timer));
  };
}

/** One file's bytes on their way to the sink: the magic, the content check, the backpressure of both. */
interface Intake<S extends UploadSink> {
  sink: S;
  check: StreamCheck | null;
  /** The sink feeds the check (CheckInput from its thread, or LentInput): the check's write() only looks at the head. */
  handedOver: boolean;
  /** Null when more can be taken at once; a promise to await otherwise. After a refusal (stop called): null. */
  write(chunk: Uint8Array): Promise<unknown> | null;
  /** After the last chunk: the file, once written and judged. */
  finish(): Promise<ReceivedFile<S>>;
}

function openIntake<S extends UploadSink>(
  opts: ReceiveOptions<S>,
  clientName: string,
  fields: Record<string, string>,
  stop: (err: unknown) => void,
): Intake<S> {
  const rules = { ...opts, ...opts.forName?.(clientName) };
  const magic = rules.magic ?? [];
  const magicError = rules.magicError ??
    ((name: string) => unsupported(`${name} is not a valid file: it does not start with the expected signature.`));
  let head: number[] = [];
  let stopped = false;
  const halt = (err: unknown) => {
    stopped = true;
    stop(err);
  };
  const sink = opts.sink();
  const verify = rules.verify;
  const check = verify ? verify.start({ fedByWriter: Boolean(sink.feed) }) : null;
  if (verify) check!.refused.then((problem) => halt(verify.error(clientName, problem)), halt);
  // The sink's thread feeds the check: the bytes never cross the event loop twice (docs/DECISIONS.md, "Uploads near
  // the hashing floor").
  // Else a sink that copies the bytes into buffers of its own lends the check those (one copy less).
  const fed = Boolean(check?.input && sink.feed);
  const lent = !fed && Boolean(check?.lent && sink.lendTo);
  if (fed) sink.feed!(check!.input!);
  if (lent) sink.lendTo!(check!.lent!);
  const handedOver = fed || lent;
  return {
    sink,
    check,
    handedOver,
    write(chunk) {
      if (stopped) return null;
      if (head.length < magic.length) {
        head = head.concat(Array.from(chunk.subarray(0, magic.length - head.length)));
        if (head.some((b, i) => b !== magic[i])) {
          halt(magicError(clientName));
          return null;
        }
      }
      let written, checked;
      try {
        written = sink.write(chunk);
        checked = check?.write(chunk);
      } catch (err) {
        halt(err);
        return null;
      }
      return written || checked ? Promise.all([written, checked]) : null;
    },
    async finish() {
      if (head.length < magic.length) throw magicError(clientName);
      const [stored, problem] = await Promise.all([sink.finish(), check?.finish() ?? null]);
      if (problem !== null && verify) throw verify.error(clientName, problem);
      return { name: clientName, ...stored, sink, fields };
    },
  };
}
