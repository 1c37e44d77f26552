/** Helpers for the operations tests: database dumps, task runs, import files and uploads held open. */
import { fixedLengthFetch } from "../../shared/fixed_length_fetch.ts";
import { makeImportDb } from "../../testing/import_db.ts";
import { listFiles } from "../../testing/server.ts";
import { dumpDatabase as dumpAllTables } from "../../testing/sqlite_file.ts";
import { xzOfSize } from "../../testing/xz_fixtures.ts";

/** Sign-in bookkeeping (throttle counts, addresses signed in from): every sign-in writes it, so it is left out. */
const SIGN_IN_TABLES = ["login_attempts", "login_addresses"];

/**
 * Every table's rows but the sign-in bookkeeping: what a restart or a killed request must leave as it was. The audit
 * trail's sign-in entries (and so its head row) go with that bookkeeping; every other entry stays compared.
 */
export function dumpDatabase(file: string): Record<string, string[]> {
  const dump = dumpAllTables(file);
  for (const table of SIGN_IN_TABLES) delete dump[table];
  delete dump.audit_head;
  if (dump.audit_entries) {
    dump.audit_entries = dump.audit_entries.filter((row) => JSON.parse(row).action !== "auth.sign_in");
  }
  return dump;
}

const ROOT = new URL("../../", import.meta.url).pathname;

/** Runs `deno run -A scripts/<script>.ts args…` like its deno task does. */
export async function runScript(script: string, args: string[], env: Record<string, string>) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}scripts/${script}.ts`, ...args],
    cwd: ROOT,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

export interface OpsTreatment {
  name: string;
  category?: string | null;
  phases: { duration: number; channels: number[] /* currents */ }[];
  images?: Uint8Array[];
}

/** Writes a treatment import file with testing/import_db.ts; channels differ only in current. */
export function makeImportFile(path: string, treatments: OpsTreatment[]): string {
  makeImportDb(
    path,
    treatments.map((t) => ({
      name: t.name,
      category: t.category ?? null,
      use: "home use",
      phases: t.phases.map((p) => ({
        duration: p.duration,
        channels: p.channels.map((current) => ({
          current,
          frequency: 50,
          polarity: "biphasic",
          riseTime: 100,
          holdTime: 1000,
          fallTime: 100,
        })),
      })),
      images: t.images?.map((data) => ({ mimeType: "image/png", data })),
    })),
  );
  return path;
}

/**
 * A multipart upload whose body is sent in two parts: `head` bytes of the file at once, the rest only
 * after release(). Meanwhile the server holds a temp file: the request is truly in flight.
 */
export function heldUpload(url: string, token: string, name: string, content: Uint8Array, head = 64 * 1024) {
  const boundary = `----ops${crypto.randomUUID().replaceAll("-", "")}`;
  const te = new TextEncoder();
  const pre = te.encode(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n` +
      `Content-Type: application/octet-stream\r\n\r\n`,
  );
  const post = te.encode(`\r\n--${boundary}--\r\n`);
  let release!: () => void;
  const released = new Promise<void>((r) => release = r);
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(pre);
      controller.enqueue(content.subarray(0, head));
      await released;
      controller.enqueue(content.subarray(head));
      controller.enqueue(post);
      controller.close();
    },
  });
  const response = fixedLengthFetch(url, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${token}`,
      "Content-Type": `multipart/form-data; boundary=${boundary}`,
      "Content-Length": String(pre.byteLength + content.byteLength + post.byteLength),
    },
    body,
  });
  response.catch(() => {}); // a killed server rejects it; tests that care await it
  return { response, release };
}

/** Waits until the server has started writing a temp file (the upload is in flight). */
export async function waitForTempFile(dataDir: string, timeoutMs = 10_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const files = await listFiles(`${dataDir}/tmp`);
    if (files.length) return files;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no temp file appeared in ${dataDir}/tmp`);
}

/** A valid xz file of `size` bytes (a multiple of 4, as xz files are) holding random bytes. */
export function fakeXz(size: number): Uint8Array {
  return xzOfSize(size, "crc32", crypto.getRandomValues(new Uint32Array(1))[0]);
}

/** Bytes that start with the PNG signature (the import checks the signature of its mime type). */
export function fakePng(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let off = 0; off < size; off += 65536) crypto.getRandomValues(bytes.subarray(off, Math.min(size, off + 65536)));
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return bytes;
}

export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
