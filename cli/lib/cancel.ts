/**
 * A cancelled CLI stops at once, with nothing more sent: on SIGINT or SIGTERM (to it, to its process group, or passed
 * on by `deno task`), and when the npx in front of it is gone (npm does not pass a SIGTERM on: shared/launcher.ts). It
 * exits 130 (SIGINT) or 143 (SIGTERM, npx gone) at once: an upload's connection closes mid-body, so the server stores
 * nothing, and a call that was to follow (the --default of `firmware upload`) is never made.
 */
import { watchLaunchers } from "../../shared/launcher.ts";

export const EXIT_SIGINT = 130;
export const EXIT_SIGTERM = 143;

let describe: (() => string) | null = null;

/** What the command under way has done so far, said when it is cancelled. Returns a function that forgets it. */
export function whileCancellable(say: () => string): () => void {
  describe = say;
  return () => {
    if (describe === say) describe = null;
  };
}

function cancel(why: string, code: number): never {
  try {
    if (Deno.stdin.isTerminal()) Deno.stdin.setRaw(false); // a hidden prompt may be showing
  } catch {
    // not a terminal after all
  }
  const done = describe?.();
  // A progress bar may be on the line.
  console.error(`${Deno.stderr.isTerminal() ? "\n" : ""}error: cancelled (${why})${done ? `: ${done}` : "."}`);
  Deno.exit(code);
}

/** Installs the handlers; call once, before the command runs. */
export function exitWhenCancelled(): void {
  Deno.addSignalListener("SIGINT", () => cancel("SIGINT", EXIT_SIGINT));
  Deno.addSignalListener("SIGTERM", () => cancel("SIGTERM", EXIT_SIGTERM));
  watchLaunchers((launcher) => cancel(`the ${launcher} in front of the CLI is gone`, EXIT_SIGTERM));
}
