/**
 * Checks that an upload is a complete, valid xz file while it streams: the `xz` tool (xz-utils) tests the bytes as
 * they arrive, in its own process (so on another core): `xz --test` decodes every block, verifies each block's
 * integrity check (CRC32, CRC64 or SHA-256), the index and the stream footer, and exits 0 only for a whole file.
 * Beyond what xz accepts, a stream without an integrity check and a stream that holds no data are refused.
 * Why the tool rather than a decoder in a Worker, and the figures: docs/DECISIONS.md (Operator safety).
 *
 *   const check = startXzCheck(); await check.write(chunk); ...; const problem = await check.finish();
 */
import { type CheckInput, CheckInterruptedError, type LentInput, type StreamCheck } from "./stream_check.ts";

/** Decoding memory allowed: `xz -9` needs 65 MiB; a header asking for more than this is refused, not obeyed. */
export const XZ_MEMLIMIT = "1GiB";
/**
 * Bytes handed to xz and not yet taken by it before write() makes the upload wait: one batch. xz takes a batch in
 * about a millisecond; each batch in flight is a buffer kept for the upload's length, and a window of 4 MiB let six
 * be allocated while xz's wrapper was still connecting (a bucket upload's peak RSS ~4 MiB higher).
 */
const WINDOW = 1 << 20;
/**
 * Bytes gathered before one write to xz's pipe: the body arrives in chunks of a few KiB, and each write of a stream is
 * a round of promises and an op on the main thread; 1 MiB writes cost a fraction of that (docs/PERFORMANCE.md).
 */
const BATCH = 1 << 20;
/** Enough of the file for the rules xz does not apply: the stream flags (bytes 6-7) and what follows the header. */
const HEAD = 13;

const XZ_ARGS = ["--test", "--threads=1", `--memlimit-decompress=${XZ_MEMLIMIT}`];

/** A Linux pipe's default capacity (16 pages). */
const DEFAULT_PIPE_BYTES = 64 * 1024;
/** xz's stdin pipe where it can be widened: one write per 1 MiB batch and xz woken once per batch instead of 16 times. */
const WIDE_PIPE_BYTES = 1 << 20;
/**
 * Widens the pipe on its stdin (fcntl F_SETPIPE_SZ, 1031 on Linux), says so on stdout, then becomes xz: perl (perl-base
 * is Essential in Debian, so in the image) is the one tool at hand that makes that call; Deno has no fcntl. The pipe's
 * default 64 KiB costs the upload ~0.1-0.3 s of CPU per GiB more in both processes (docs/DECISIONS.md, "xz's pipe
 * widened"). If the call is refused (the user's pipe pages over /proc/sys/fs/pipe-user-pages-soft), xz runs on the
 * narrow pipe all the same.
 */
const WIDEN_THEN_XZ = `fcntl(STDIN, 1031, ${WIDE_PIPE_BYTES}) and print "wide\\n"; exec { "xz" } "xz", @ARGV; exit 127`;
/** No perl options from the environment. */
const PERL_ENV = { PERL5OPT: "", PERL5LIB: "", PERLLIB: "" };

/**
 * Connects to a Unix socket (XZ_INPUT), makes it the standard input, then becomes xz: the input of a check that the
 * event loop feeds (a bucket upload) comes through a socket rather than a pipe. A pipe takes each 4 KiB page of its
 * data as a new page, which on the VMs measured cost 1.2-2.1 s of CPU per GiB to write; a socket 0.4-1.3
 * (docs/DECISIONS.md, "Bucket parts without the SDK's pipeline"). Exit 126 when it cannot connect.
 */
const CONNECT_THEN_XZ = `use Socket; my $s; socket($s, PF_UNIX, SOCK_STREAM, 0) and ` +
  `connect($s, pack_sockaddr_un($ENV{XZ_INPUT})) and open(STDIN, "<&", $s) or exit 126; close $s; ` +
  `exec { "xz" } "xz", @ARGV; exit 127`;
/** Whether the probe found the socket input to work (requireXz). */
let socketInput = false;

/** A directory of its own (0700: no other user may connect) for one check's socket, removed once it connected. */
const socketDirFor = () => Deno.makeTempDirSync({ prefix: "xz-input-" });

/** A check's socket, listening; none (the pipe, then) when TMPDIR takes no directory or socket now (full, gone). */
function socketListener(): { socketDir: string | null; listener: Deno.Listener | null } {
  let dir: string | null = null;
  try {
    dir = socketDirFor();
    return { socketDir: dir, listener: Deno.listen({ transport: "unix", path: `${dir}/in.sock` }) };
  } catch {
    if (dir) Deno.remove(dir, { recursive: true }).catch(() => {});
    return { socketDir: null, listener: null };
  }
}

/** Whether perl connects xz's stdin to a Unix socket (the probe runs `xz --version` that way). */
async function probeSocketInput(): Promise<boolean> {
  let dir: string | null = null;
  try {
    dir = socketDirFor();
    const path = `${dir}/in.sock`;
    const listener = Deno.listen({ transport: "unix", path });
    const child = new Deno.Command("perl", {
      args: ["-e", CONNECT_THEN_XZ, "--", "--version"],
      env: { ...XZ_ENV, ...PERL_ENV, XZ_INPUT: path },
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const conn = await Promise.race([listener.accept(), child.status.then(() => null)]);
    listener.close();
    conn?.close();
    const out = await child.output();
    return conn !== null && out.success && new TextDecoder().decode(out.stdout).includes("xz (XZ Utils)");
  } catch {
    return false; // no perl, no Socket module, no Unix sockets: the pipe
  } finally {
    if (dir) await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** The program and arguments of one xz check: through perl where probed to work (requireXz), else xz itself. */
let xzCommand = (args: string[]): [string, string[]] => ["xz", args];
/** The capacity of a check's stdin pipe, as probed. */
let pipeBytes = DEFAULT_PIPE_BYTES;

/** Whether perl widens a pipe and then runs xz (the probe runs `xz --version` that way). */
async function probeWidePipe(): Promise<boolean> {
  try {
    const child = new Deno.Command("perl", {
      args: ["-e", WIDEN_THEN_XZ, "--", "--version"],
      env: { ...XZ_ENV, ...PERL_ENV },
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    await child.stdin.close();
    const out = await child.output();
    const text = new TextDecoder().decode(out.stdout);
    return out.success && text.startsWith("wide\n") && text.includes("xz (XZ Utils)");
  } catch {
    return false;
  }
}
// English messages whatever the server's locale (they are matched below); no options from the environment.
const XZ_ENV = { LC_ALL: "C", XZ_DEFAULTS: "", XZ_OPT: "" };

/** The server cannot check firmware uploads: thrown at start-up, before anything is served. */
export class XzMissingError extends Error {}

/**
 * Whether a writer on another thread may open an xz check's stdin itself at /proc/<pid>/fd/0 (CheckInput): Linux with
 * /proc and nothing forbidding it. Probed once by requireXz(); until then (and where it fails) the server's event loop
 * writes xz's pipe, as before.
 */
let reopenableStdin = false;

async function probeReopenableStdin(): Promise<boolean> {
  const child = new Deno.Command("xz", { args: XZ_ARGS, env: XZ_ENV, stdin: "piped", stdout: "null", stderr: "null" })
    .spawn();
  try {
    (await Deno.open(`/proc/${child.pid}/fd/0`, { write: true })).close();
    return true;
  } catch {
    return false;
  } finally {
    await child.stdin.close().catch(() => {});
    await child.status;
  }
}

/** Fails with one clear sentence when the `xz` tool cannot be run; answers its version line otherwise. */
export async function requireXz(): Promise<string> {
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command("xz", { args: ["--version"], env: XZ_ENV, stdin: "null", stderr: "null" }).output();
  } catch {
    out = { code: 127 } as Deno.CommandOutput;
  }
  if (out.code !== 0) {
    throw new XzMissingError(
      "Cannot start: the xz tool is not installed or not on PATH (install the xz-utils package); " +
        "firmware uploads are checked with `xz --test`.",
    );
  }
  reopenableStdin = await probeReopenableStdin();
  socketInput = await probeSocketInput();
  if (await probeWidePipe()) {
    xzCommand = (args) => ["perl", ["-e", WIDEN_THEN_XZ, "--", ...args]];
    pipeBytes = WIDE_PIPE_BYTES;
  }
  return new TextDecoder().decode(out.stdout).split("\n")[0];
}

/** What xz's complaint means, in words (the file name is the caller's). */
export function xzProblem(stderr: string): string {
  const line = stderr.split("\n").map((l) => l.trim()).find((l) => l) ?? "";
  const said = line.replace(/^.*?\(stdin\):\s*/, "");
  if (/Compressed data is corrupt/i.test(said)) {
    return "its compressed data is corrupt (a block's integrity check, the index or the stream footer does not match, " +
      "or bytes that are not xz follow the stream)";
  }
  if (/Unexpected end of input/i.test(said)) {
    return "the file ends before its xz stream does (it is truncated, or a few stray bytes follow the stream)";
  }
  if (/File format not recognized/i.test(said)) return "it is not in the xz format";
  if (/Unsupported type of integrity check/i.test(said)) {
    return "its integrity check is of a type xz does not support, so its content cannot be verified";
  }
  if (/Memory usage limit/i.test(said)) return `decoding it would need more than ${XZ_MEMLIMIT} of memory`;
  if (/Unsupported options|Unsupported filter/i.test(said)) {
    return "it uses xz options or filters that cannot be decoded";
  }
  return said ? `xz refused it (${said})` : "xz refused it";
}

/** The rules beyond xz's own, on the first bytes of a file xz accepted. */
function headProblem(head: Uint8Array): string | null {
  if ((head[7] & 0x0f) === 0) {
    return "it has no integrity check (made with --check=none), so its content cannot be verified";
  }
  // After the 12-byte stream header comes a block header (its size byte is never 0) or the index (0x00).
  if (head[12] === 0) return "its xz stream holds no data";
  return null;
}

/** What a check killed by a signal (not by abort()) answers: it says nothing about the file. */
const interrupted = (signal: string) =>
  new CheckInterruptedError(`the xz check was stopped by ${signal} before it could judge the file`);

/** The wrapper could not connect xz's input, or could not run xz (126, 127: never xz's own exit codes). */
const couldNotStart = () => new CheckInterruptedError("the xz check could not be started");

/**
 * The check, and the pid of its xz process (tests). `fedByWriter` false: the event loop writes every byte (no writer
 * on another thread will take the input over), so they go through a Unix socket where it was probed to work.
 */
export function startXzCheck(
  how: { fedByWriter?: boolean } = {},
): StreamCheck & { pid: number; socketDir: string | null } {
  const { socketDir, listener } = how.fedByWriter === false && socketInput
    ? socketListener()
    : { socketDir: null, listener: null };
  const socketPath = socketDir && `${socketDir}/in.sock`;
  // detached: xz runs in a session (and process group) of its own, so a signal an operator, systemd or `timeout`
  // sends to the server's process group (Ctrl-C) reaches the server alone; the server decides what becomes of the
  // uploads in flight (they finish within the grace period). Its stdin is the server's pipe: if the server dies, xz
  // reads the end of its input and exits.
  const [program, args] = socketPath ? ["perl", ["-e", CONNECT_THEN_XZ, "--", ...XZ_ARGS]] : xzCommand(XZ_ARGS);
  const child = new Deno.Command(program, {
    args,
    env: { ...XZ_ENV, ...PERL_ENV, ...(socketPath && { XZ_INPUT: socketPath }) },
    stdin: listener ? "null" : "piped",
    stdout: "null",
    stderr: "piped",
    detached: true,
  }).spawn();
  const writer = listener ? socketWriter(listener, socketDir!, child.status) : child.stdin.getWriter();
  const stderr = new Response(child.stderr).text().catch(() => "");
  const head = new Uint8Array(HEAD);
  let headBytes = 0;
  let inFlight = 0;
  let closed = false;
  let exited = false;
  let aborted = false;

  // A signal is never the file's fault: xz killed by one (other than abort()'s) is an interrupted check.
  const verdict = Promise.all([child.status, stderr]).then(([status, text]) => {
    exited = true;
    if (status.signal !== null && !aborted) throw interrupted(status.signal);
    if ((status.code === 126 || status.code === 127) && !aborted) throw couldNotStart();
    return status.success ? null : xzProblem(text);
  });
  verdict.catch(() => {}); // handled by refused or finish(), whichever is awaited
  const refused = new Promise<string>((resolve, reject) => {
    verdict.then((problem) => {
      if (problem !== null && !closed) resolve(problem);
    }, (err) => {
      if (!closed) reject(err);
    });
  });
  refused.catch(() => {}); // a caller that never awaits refused (addFirmware) must not meet an unhandled rejection

  let batch: Uint8Array | null = null;
  let filled = 0;
  /** Batches xz has taken, for reuse: at most WINDOW / BATCH + 1 are ever allocated. */
  const spare: Uint8Array[] = [];
  /** Hands bytes to xz; a promise when more than WINDOW bytes are then in flight. */
  const send = (bytes: Uint8Array, ours: boolean): Promise<void> | null => {
    inFlight += bytes.length;
    // A failed write means xz has exited: its exit status and message give the verdict.
    const written = writer.write(bytes).catch(() => {}).then(() => {
      inFlight -= bytes.length;
      if (ours && bytes.length === BATCH) spare.push(bytes);
    });
    return inFlight > WINDOW ? written : null;
  };
  /** Hands the gathered bytes to xz. */
  const flush = (): Promise<void> | null => {
    if (!batch || filled === 0) return null;
    const full = filled === batch.length ? batch : batch.subarray(0, filled);
    batch = null;
    filled = 0;
    return send(full, true);
  };
  // The first chunk goes to xz as it comes: a file that is not xz at all is refused at once, not after a batch.
  let first = true;
  /** The bytes reach xz from a writer that opened its stdin itself (input): write() only reads the head. */
  let handedOver = false;
  /** The bytes are lent by the caller (LentInput), through the socket that write() would have used. */
  let lending = false;

  const stop = () => {
    if (closed) return;
    closed = true;
    writer.abort().catch(() => {});
  };

  // Linux: opening /proc/<pid>/fd/0 of a pipe opens that pipe again (another write end, blocking, the opener's own).
  const input: CheckInput = {
    path: `/proc/${child.pid}/fd/0`,
    pipeBytes,
    handOver: () => void (handedOver = true),
    // Not `closed`: xz's verdict before the end is still an early refusal.
    opened: () => void writer.close().catch(() => {}),
  };

  // The socket's writer writes each lent range whole before the next, straight from the caller's buffer.
  const lent: LentInput = {
    handOver: () => void (handedOver = lending = true),
    lend: (bytes) => closed || exited ? Promise.resolve() : writer.write(bytes).catch(() => {}),
  };

  return {
    pid: child.pid,
    socketDir,
    refused,
    input: reopenableStdin && !listener ? input : undefined,
    lent: listener ? lent : undefined,
    copies: true,
    write(chunk) {
      if (headBytes < HEAD) {
        const part = chunk.subarray(0, HEAD - headBytes);
        head.set(part, headBytes);
        headBytes += part.length;
      }
      if (closed || exited || handedOver) return null;
      if (first) {
        first = false;
        return send(chunk.slice(), false); // a copy: the caller may read the next chunk into its buffer
      }
      let waits: Promise<void> | null = null;
      for (let off = 0; off < chunk.length;) {
        batch ??= spare.pop() ?? new Uint8Array(BATCH);
        const n = Math.min(BATCH - filled, chunk.length - off);
        batch.set(chunk.subarray(off, off + n), filled);
        filled += n;
        off += n;
        if (filled === BATCH) waits = flush() ?? waits;
      }
      return waits;
    },
    async finish() {
      if (!closed && !exited && !handedOver) flush();
      if (!closed) {
        closed = true;
        // Handed over to a writer on another thread: our end stays open until it has opened its own (opened()), or xz
        // reads the end now. Lent: the socket is closed after the last lent range.
        if (!handedOver || lending) await writer.close().catch(() => {});
      }
      const problem = await verdict;
      if (problem !== null) return problem;
      return headBytes < HEAD ? "the file ends before its xz stream does" : headProblem(head);
    },
    abort() {
      aborted = true;
      stop();
      if (!exited) {
        try {
          child.kill("SIGKILL");
        } catch {
          // already gone
        }
      }
    },
  };
}

/** What the check writes to (a pipe's writer, or this): write, close and abort in the order called. */
interface InputWriter {
  write(bytes: Uint8Array): Promise<void>;
  close(): Promise<void>;
  abort(): Promise<void>;
}

/**
 * The one connection of xz's wrapper to `listener` as the check's input: the bytes written in order (each write whole
 * before the next), closed after the last. The socket's directory is removed once the wrapper connected or exited.
 */
function socketWriter(listener: Deno.Listener, dir: string, exited: Promise<unknown>): InputWriter {
  const accepted = Promise.race([listener.accept(), exited.then(() => null)]).catch(() => null).finally(() => {
    listener.close();
    Deno.remove(dir, { recursive: true }).catch(() => {});
  });
  let conn: Deno.Conn | null = null;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    try {
      conn?.close();
    } catch { /* closed */ }
  };
  let tail: Promise<void> = accepted.then((c) => {
    conn = c;
    if (!c) throw new Error("xz's input did not connect");
    if (closed) c.close();
  });
  tail.catch(() => {}); // a check aborted before xz connected: its verdict says so, not this
  const next = (step: () => Promise<void> | void) => tail = tail.then(step);
  return {
    write: (bytes) =>
      next(async () => {
        for (let off = 0; off < bytes.length;) off += await conn!.write(bytes.subarray(off));
      }),
    close: () => tail = tail.then(close, close), // after the last write, or once a write failed (xz has gone)
    abort: () => {
      close();
      return Promise.resolve();
    },
  };
}
