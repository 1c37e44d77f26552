/** Spawns the real CLI (`deno run -A cli/main.ts`) as a child process, with a clean CONSOLE_* environment. */
import { xzBytes } from "../../testing/xz_fixtures.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
export const CLI_MAIN = `${ROOT}cli/main.ts`;

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** Variables on top of the passed-through basics (PATH, HOME, DENO_DIR...); nothing CONSOLE_* leaks in. */
  env?: Record<string, string>;
  /** Written to standard input, which is then closed. */
  stdin?: string;
}

/** The environment a CLI child gets: the machine's basics only, then `extra`. */
export function cliEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { NO_COLOR: "1" };
  for (const name of ["PATH", "HOME", "DENO_DIR", "XDG_CACHE_HOME", "TMPDIR", "LANG"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...extra };
}

export async function runCli(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--v8-flags=--expose-gc", CLI_MAIN, ...args],
    cwd: ROOT,
    clearEnv: true,
    env: cliEnv(opts.env),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  if (opts.stdin !== undefined) await writer.write(new TextEncoder().encode(opts.stdin)).catch(() => {});
  await writer.close().catch(() => {});
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: withoutRuntimeNoise(dec.decode(out.stderr)) };
}

/**
 * Drops the lines the Deno runtime itself may print before the CLI runs (several deno processes starting at once
 * wait for the node_modules lock; a cold cache downloads), so assertions see only what the CLI wrote.
 */
export function withoutRuntimeNoise(stderr: string): string {
  return stderr.replace(/^(Blocking waiting for file lock on .*|Download https?:\/\/.*)\r?\n/gm, "");
}

/** A short description of a result for assertion messages. */
export function show(r: CliResult): string {
  return `exit ${r.code}\n--- stdout\n${r.stdout}--- stderr\n${r.stderr}`;
}

/** Runs the CLI and parses its standard output as JSON, asserting exit 0 and a quiet stderr. */
export async function cliJson<T = unknown>(args: string[], opts: CliOptions = {}): Promise<T> {
  const r = await runCli(["--json", ...args], opts);
  if (r.code !== 0) throw new Error(`CLI failed: ${args.join(" ")}\n${show(r)}`);
  return JSON.parse(r.stdout) as T;
}

/** Writes a valid xz file holding `body` (built without the xz tool: stored chunks, CRC64). */
export async function writeFakeXz(path: string, body = "firmware body"): Promise<string> {
  await Deno.writeFile(path, xzBytes(body));
  return path;
}

/** Runs the CLI on a pseudo-terminal (util-linux `script`), so stdout and stderr are terminals; returns all output. */
export async function runCliOnTerminal(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
  const line = [Deno.execPath(), "run", "-A", "--v8-flags=--expose-gc", CLI_MAIN, ...args].map(quote).join(" ");
  const out = await new Deno.Command("script", {
    args: ["-qec", line, "/dev/null"],
    cwd: ROOT,
    clearEnv: true,
    env: cliEnv({ TERM: "xterm", ...opts.env }),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  // On a terminal stdout and stderr are one stream: drop the runtime's lines from it too.
  return { code: out.code, stdout: withoutRuntimeNoise(dec.decode(out.stdout)), stderr: "" };
}

/** An interactive CLI session on a pseudo-terminal: wait for a prompt, type an answer. */
export function startCliOnTerminal(args: string[], opts: CliOptions = {}) {
  const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
  const line = [Deno.execPath(), "run", "-A", "--v8-flags=--expose-gc", CLI_MAIN, ...args].map(quote).join(" ");
  const child = new Deno.Command("script", {
    args: ["-qec", line, "/dev/null"],
    cwd: ROOT,
    clearEnv: true,
    env: cliEnv({ TERM: "xterm", ...opts.env }),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let output = "";
  const pump = (async () => {
    const dec = new TextDecoder();
    for await (const chunk of child.stdout) output += dec.decode(chunk, { stream: true });
  })();
  const writer = child.stdin.getWriter();
  return {
    output: () => output,
    async waitFor(text: string, timeoutMs = 20_000) {
      const end = Date.now() + timeoutMs;
      while (!output.includes(text)) {
        if (Date.now() > end) throw new Error(`no '${text}' on the terminal; got:\n${output}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    type: (text: string) => writer.write(new TextEncoder().encode(text)),
    async finish(): Promise<CliResult> {
      const status = await child.status;
      await pump;
      await writer.close().catch(() => {});
      await child.stderr.cancel();
      return { code: status.code, stdout: withoutRuntimeNoise(output), stderr: "" };
    },
  };
}

/** A URL on which nothing listens: a port the OS just handed out and that was closed again. */
export function closedPortUrl(): string {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return `http://127.0.0.1:${port}`;
}
