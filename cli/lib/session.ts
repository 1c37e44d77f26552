/** Global options (--url, --token, --json) and the signed-in API client they lead to. */
import type { Command } from "commander";
import { ApiClient } from "../../shared/client.ts";
import { fixedLengthFetch } from "../../shared/fixed_length_fetch.ts";
import { noteCredentialSource, UsageError } from "./errors.ts";
import { loadLogin, tokenPath } from "./token_store.ts";

export const DEFAULT_URL = "http://127.0.0.1:8000";

export interface GlobalOptions {
  url?: string;
  token?: string;
  json?: boolean;
}

export function globals(cmd: Command): GlobalOptions {
  return cmd.optsWithGlobals<GlobalOptions>();
}

/** --url, else CONSOLE_URL, else the default; an http(s) URL without trailing slash. */
export function consoleUrl(opts: GlobalOptions): string {
  const raw = opts.url ?? env("CONSOLE_URL") ?? DEFAULT_URL;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new UsageError(`'${raw}' is not a URL (expected e.g. ${DEFAULT_URL}).`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new UsageError(`'${raw}' is not an http or https URL.`);
  }
  return parsed.href.replace(/\/+$/, "");
}

export type Credentials =
  | { source: "--token" | "CONSOLE_TOKEN" | "saved"; token: string }
  | { source: "CONSOLE_EMAIL"; email: string; password: string };

/** Credentials: --token, then CONSOLE_TOKEN, then CONSOLE_EMAIL + CONSOLE_PASSWORD, then the saved login. */
export async function credentials(opts: GlobalOptions, url: string): Promise<Credentials> {
  if (opts.token !== undefined) {
    if (!opts.token.trim()) throw new UsageError("--token is empty.");
    return { source: "--token", token: opts.token.trim() };
  }
  const envToken = env("CONSOLE_TOKEN");
  if (envToken) return { source: "CONSOLE_TOKEN", token: envToken };
  const email = env("CONSOLE_EMAIL");
  const password = env("CONSOLE_PASSWORD");
  if (email && password) return { source: "CONSOLE_EMAIL", email, password };
  if (email || password) {
    throw new UsageError(
      `${email ? "CONSOLE_EMAIL" : "CONSOLE_PASSWORD"} is set but ${
        email ? "CONSOLE_PASSWORD" : "CONSOLE_EMAIL"
      } is not.`,
    );
  }
  const saved = await loadLogin();
  if (!saved) {
    throw new UsageError(
      "Not signed in: pass --token, set CONSOLE_TOKEN or CONSOLE_EMAIL and CONSOLE_PASSWORD, or run login.",
    );
  }
  // A token is only ever sent to the server that issued it.
  if (saved.url !== url) {
    throw new UsageError(`The saved login is for ${saved.url}, not ${url}: pass --url ${saved.url} or run login.`);
  }
  return { source: "saved", token: saved.token };
}

/** A client for the console at `url` without a token (for login). */
export function anonymousClient(url: string): ApiClient {
  return new ApiClient({ baseUrl: url });
}

function describeSource(source: Credentials["source"]): string {
  if (source === "saved") return `the login saved in ${tokenPath()}`;
  if (source === "CONSOLE_EMAIL") return "the login with CONSOLE_EMAIL and CONSOLE_PASSWORD";
  return source;
}

/** Resolves URL and credentials (signing in on the fly for CONSOLE_EMAIL) and returns a client carrying the token. */
export async function signedInClient(cmd: Command): Promise<ApiClient> {
  const opts = globals(cmd);
  const url = consoleUrl(opts);
  const creds = await credentials(opts, url);
  noteCredentialSource(describeSource(creds.source));
  const token = "token" in creds ? creds.token : (await anonymousClient(url).login(creds.email, creds.password)).token;
  return new ApiClient({ baseUrl: url, token: () => token, uploadFetch: fixedLengthFetch });
}

function env(name: string): string | undefined {
  const value = Deno.env.get(name);
  return value === undefined || value === "" ? undefined : value;
}
