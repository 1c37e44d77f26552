/** A one-line upload progress bar on stderr: bar, bytes, percent and rate. */
import type { Progress } from "../../shared/client.ts";
import { formatBytes } from "../../shared/format_bytes.ts";

const WIDTH = 30;
const REDRAW_MS = 100;

export interface ProgressBar {
  update(p: Progress): void;
  /** Draws the last state and ends the line. */
  done(): void;
}

/** The bar only on a terminal (stdout and stderr) and never with --json; otherwise does nothing. */
export function progressBar(opts: { json?: boolean }): ProgressBar {
  if (opts.json || !Deno.stdout.isTerminal() || !Deno.stderr.isTerminal()) return { update() {}, done() {} };
  const started = performance.now();
  const encoder = new TextEncoder();
  let last: Progress = { loaded: 0, total: 0 };
  let drawnAt = -Infinity;
  const draw = () => {
    const { loaded, total } = last;
    const ratio = total > 0 ? Math.min(1, loaded / total) : 1;
    const filled = Math.round(ratio * WIDTH);
    const seconds = (performance.now() - started) / 1000;
    const rate = seconds > 0 ? loaded / seconds : 0;
    const text = `[${"#".repeat(filled)}${".".repeat(WIDTH - filled)}] ${(ratio * 100).toFixed(0).padStart(3)}%  ` +
      `${formatBytes(loaded)} / ${formatBytes(total)}  ${formatBytes(rate)}/s`;
    Deno.stderr.writeSync(encoder.encode(`\r${text}\x1b[K`));
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
    done() {
      draw();
      Deno.stderr.writeSync(encoder.encode("\n"));
    },
  };
}
