/**
 * Upload progress on stderr: on a terminal a one-line bar (bar, bytes, percent, rate); in a log (stderr not a
 * terminal, as in CI) plain lines: one at the start, one at every 10 %, one when the server has answered.
 */
import type { Progress } from "../../shared/client.ts";
import { formatBytes } from "../../shared/format_bytes.ts";

const WIDTH = 30;
const REDRAW_MS = 100;

export interface ProgressBar {
  update(p: Progress): void;
  /** The job ended: `ok` draws the last state and says it is done; otherwise only ends the line. */
  done(ok?: boolean): void;
}

const encoder = new TextEncoder();
const write = (text: string) => Deno.stderr.writeSync(encoder.encode(text));
const rateOf = (bytes: number, started: number) => {
  const seconds = (performance.now() - started) / 1000;
  return seconds > 0 ? bytes / seconds : 0;
};

/**
 * `what` names the job in the lines ("Uploading fw-1.4.2.xz"); `total` its size in bytes when known. The bar on a
 * terminal (stdout and stderr) unless --json; lines when stderr is not a terminal (a log), --json or not; else none.
 */
export function progressBar(opts: { json?: boolean }, what: string, total = 0): ProgressBar {
  if (!Deno.stderr.isTerminal()) return progressLines(what, total, write);
  if (!opts.json && Deno.stdout.isTerminal()) return terminalBar();
  return { update() {}, done() {} };
}

function terminalBar(): ProgressBar {
  const started = performance.now();
  let last: Progress = { loaded: 0, total: 0 };
  let drawnAt = -Infinity;
  const draw = () => {
    const { loaded, total } = last;
    const ratio = total > 0 ? Math.min(1, loaded / total) : 1;
    const filled = Math.round(ratio * WIDTH);
    const text = `[${"#".repeat(filled)}${".".repeat(WIDTH - filled)}] ${(ratio * 100).toFixed(0).padStart(3)}%  ` +
      `${formatBytes(loaded)} / ${formatBytes(total)}  ${formatBytes(rateOf(loaded, started))}/s`;
    write(`\r${text}\x1b[K`);
  };
  return {
    update(p) {
      last = p;
      const now = performance.now();
      if (now - drawnAt >= REDRAW_MS) {
        drawnAt = now;
        draw();
      }
    },
    done(ok = true) {
      if (ok) draw();
      write("\n");
    },
  };
}

/** The lines of a log: start, each 10 % step reached (once), done. Exported for its test. */
export function progressLines(what: string, total: number, out: (text: string) => void): ProgressBar {
  const started = performance.now();
  let loaded = 0;
  let step = 0;
  out(`${what}: started${total > 0 ? ` (${formatBytes(total)})` : ""}\n`);
  return {
    update(p) {
      loaded = p.loaded;
      const size = p.total || total;
      if (size <= 0) return;
      const reached = Math.min(10, Math.floor(p.loaded * 10 / size));
      if (reached <= step) return;
      step = reached;
      out(`${what}: ${step * 10} % (${formatBytes(p.loaded)} of ${formatBytes(size)})\n`);
    },
    done(ok = true) {
      if (!ok) return;
      const seconds = (performance.now() - started) / 1000;
      out(
        `${what}: done, ${formatBytes(loaded || total)} in ${seconds.toFixed(1)} s (${
          formatBytes(rateOf(loaded || total, started))
        }/s)\n`,
      );
    },
  };
}
