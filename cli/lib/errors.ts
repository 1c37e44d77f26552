/** The CLI's error types and the single place that turns any error into one stderr line and an exit code. */
import { CommanderError } from "commander";
import { ApiError } from "../../shared/client.ts";

/** Exit codes: 0 done, 1 refused by the server or the network, 2 wrong usage or a wait timed out (README "CLI"). */
export const EXIT_OK = 0;
export const EXIT_REFUSED = 1;
export const EXIT_USAGE = 2;
export const EXIT_TIMED_OUT = 2;

/** Wrong usage detected locally: bad argument, missing file, wrong extension, bad magic bytes, no credentials. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** A refusal decided from the server's answers, e.g. an unknown or ambiguous firmware name. */
export class RefusedError extends Error {
  override name = "RefusedError";
}

/** A wait that ran out of time (rollouts show --wait --timeout): exit 2, so CI tells it from a paused rollout. */
export class TimedOutError extends Error {
  override name = "TimedOutError";
}

let credentialSource: string | undefined;

/** Remembers where this run's token came from, so a 401 can say which credential was refused. */
export function noteCredentialSource(description: string): void {
  credentialSource = description;
}

/** Writes one line for `err` on stderr (unless commander already did) and returns the exit code. */
export function handleError(err: unknown): number {
  if (err instanceof CommanderError) {
    // commander printed its own message (or the help); exit code 0 means --help or --version.
    return err.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
  }
  if (err instanceof UsageError) return fail(err.message, EXIT_USAGE);
  if (err instanceof RefusedError) return fail(err.message, EXIT_REFUSED);
  if (err instanceof TimedOutError) return fail(err.message, EXIT_TIMED_OUT);
  if (err instanceof ApiError) return fail(apiErrorLine(err), EXIT_REFUSED);
  return fail(`unexpected failure: ${err instanceof Error ? err.message : String(err)}`, EXIT_REFUSED);
}

function apiErrorLine(err: ApiError): string {
  switch (err.kind) {
    case "HTTP_ERROR":
      // An answer without the console's error body: probably not the console at all.
      if (!err.code) return `${err.msg} from ${err.url} (is the console at that URL?)`;
      if (
        err.status === 401 && err.code !== "invalid_credentials" && err.code !== "invalid_password" && credentialSource
      ) {
        return `${err.msg} (the token came from ${credentialSource})`;
      }
      return err.msg;
    case "PARSING_ERROR":
      return `${err.msg} (is the console at that URL?)`;
    case "FETCH_ERROR":
    case "TIMEOUT_ERROR":
      return err.msg;
  }
}

function fail(line: string, code: number): number {
  console.error(`error: ${line.replace(/\s*\n\s*/g, " ")}`);
  return code;
}
