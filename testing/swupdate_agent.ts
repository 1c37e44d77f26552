/**
 * Debian's real SWUpdate (2022.12) as a hawkBit DDI agent against a test server (CONTRACT §18): `swupdate` in
 * suricatta mode, each agent in a directory of its own that is its TMPDIR (where SWUpdate keeps its IPC sockets, so
 * agents never meet), with polls triggered through `swupdate-ipc hawkbitcfg` instead of waiting for the interval.
 *
 *   await using agent = await startAgent({ url, deviceId, targetToken, cert, hardware: "board:1.0", dir });
 *   await agent.trigger();                       // poll now
 *   await agent.waitFor(/SWUPDATE successful/);  // read its log
 *   await agent.stop();                          // the "reboot"; then startAgent({..., confirm: 2}) reports success
 *
 * The options were read from SWUpdate's source (suricatta/server_hawkbit.c, suricatta/suricatta.c at tag 2022.12)
 * and its `-h`: no configuration file is needed, `-u` carries the suricatta options. `hawkbitcfg -p 1` (sent at start)
 * is taken only once the sleep in progress ends, and was not seen to shorten the cancel check made during a download:
 * tests that need polls every second also give the server's `sleep` of 1 s (DDI_POLL_SECONDS=1); `trigger()` (`-t`)
 * wakes the agent at once.
 */

export interface AgentOptions {
  /** The server's base URL, e.g. http://127.0.0.1:8080 (suricatta adds /{tenant}/controller/v1/{id}). */
  url: string;
  deviceId: string;
  tenant?: string;
  /** `Authorization: TargetToken ...` (DEVICE_AUTH=token) ... */
  targetToken?: string;
  /** ... or `Authorization: GatewayToken ...` (shared mode). */
  gatewayToken?: string;
  /** The certificate the images' sw-description.sig is checked against (`-k`). */
  cert: string;
  /** The agent's hardware, `board:revision` (`-H`); the image's hardware-compatibility must list the revision. */
  hardware: string;
  /** A directory of the agent's own: its TMPDIR (IPC sockets, downloads) and its log. */
  dir: string;
  /** `-c`: the state reported at start (2 = the update is installed and the device rebooted into it: success). */
  confirm?: 1 | 2 | 3;
}

export interface Agent extends AsyncDisposable {
  readonly pid: number;
  readonly deviceId: string;
  /** Everything the agent wrote so far (stdout and stderr). */
  log(): string;
  /** Waits until the log (from `from`, a length of log() taken earlier) matches `re`; throws with the log's tail. */
  waitFor(re: RegExp, opts?: { timeoutMs?: number; from?: number }): Promise<RegExpMatchArray>;
  /** `swupdate-ipc hawkbitcfg -t`: poll the server now. */
  trigger(): Promise<void>;
  /** `swupdate-ipc hawkbitcfg -p <seconds>`: poll that often, whatever the server's `sleep` says. */
  pollEvery(seconds: number): Promise<void>;
  /** Stops the agent (SIGTERM, then SIGKILL after 5 s) and waits for its exit. Idempotent. */
  stop(): Promise<void>;
}

const decoder = new TextDecoder();

/** What `swupdate-ipc` needs to reach this agent: the same TMPDIR. */
async function ipc(dir: string, args: string[]): Promise<string> {
  const out = await new Deno.Command("swupdate-ipc", {
    args,
    env: { TMPDIR: dir },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = decoder.decode(out.stdout) + decoder.decode(out.stderr);
  if (!out.success) throw new Error(`swupdate-ipc ${args.join(" ")} failed (${out.code}): ${text}`);
  return text;
}

/** The suricatta options (`-u "..."`). */
export function suricattaArgs(o: AgentOptions): string {
  const args = ["-t", o.tenant ?? "DEFAULT", "-u", o.url, "-i", o.deviceId];
  if (o.targetToken) args.push("-k", o.targetToken);
  if (o.gatewayToken) args.push("-g", o.gatewayToken);
  if (o.confirm) args.push("-c", String(o.confirm));
  // A failed request is retried after 1 s, not 5; the report made at start (-c) is resent after 1 s, not 10.
  args.push("-w", "1", "-m", "1");
  return args.join(" ");
}

/** Starts `swupdate` in suricatta mode and waits until its IPC socket answers. */
export async function startAgent(o: AgentOptions): Promise<Agent> {
  await Deno.mkdir(o.dir, { recursive: true });
  const child = new Deno.Command("swupdate", {
    args: ["-v", "-k", o.cert, "-H", o.hardware, "-u", suricattaArgs(o)],
    // Only what it needs: its own TMPDIR; no proxy from the environment (the server is local).
    env: { TMPDIR: o.dir, PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", LC_ALL: "C" },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let text = "";
  const waiters = new Set<() => void>();
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) {
      text += decoder.decode(chunk, { stream: true });
      for (const w of waiters) w();
    }
  };
  const pumped = Promise.all([pump(child.stdout), pump(child.stderr)]).catch(() => {});
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    for (const w of waiters) w();
    return s;
  });

  const agent: Agent = {
    pid: child.pid,
    deviceId: o.deviceId,
    log: () => text,
    waitFor(re, { timeoutMs = 60_000, from = 0 } = {}) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = text.slice(from).match(re);
          if (m) {
            done();
            resolve(m);
          } else if (exited) {
            done();
            reject(new Error(`swupdate exited before its log matched ${re}:\n${text.slice(-4000)}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`swupdate's log did not match ${re} within ${timeoutMs} ms:\n${text.slice(-4000)}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    async trigger() {
      await ipc(o.dir, ["hawkbitcfg", "-t"]);
    },
    async pollEvery(seconds) {
      await ipc(o.dir, ["hawkbitcfg", "-p", String(seconds)]);
    },
    async stop() {
      if (!exited) {
        try {
          child.kill("SIGTERM");
        } catch { /* gone */ }
        const timer = setTimeout(() => {
          try {
            child.kill("SIGKILL");
          } catch { /* gone */ }
        }, 5_000);
        await status;
        clearTimeout(timer);
      }
      await pumped;
    },
    async [Symbol.asyncDispose]() {
      await agent.stop();
    },
  };
  // Ready once its control socket takes a command (it is created before suricatta starts polling).
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await ipc(o.dir, ["hawkbitcfg", "-p", "1"]);
      break;
    } catch (err) {
      if (exited || Date.now() > deadline) {
        await agent.stop();
        throw new Error(`swupdate did not start: ${err instanceof Error ? err.message : err}\n${text.slice(-4000)}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return agent;
}
