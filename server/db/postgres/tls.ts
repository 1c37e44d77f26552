/**
 * TLS to PostgreSQL (DATABASE_URL's `?sslmode=require`, a managed service's usual setting), negotiated here on the
 * pool's socket before the driver sees it, instead of by the driver.
 *
 * Why: npm postgres 3.4.9 writes its 8-byte SSLRequest through its buffered write(), which a connection ended or closed
 * in the turn of an earlier write never flushes again (open.ts STARTUP_PAD): that connection slot would fail every
 * connect_timeout for ~128 tries. Here the SSLRequest is written straight to the socket, the driver gets a socket whose
 * TLS is up, and its first write is the start-up message, which STARTUP_PAD sends at once whatever was left before
 * (docs/DECISIONS.md, "Frozen PostgreSQL over TLS").
 */
import net from "node:net";
import tls from "node:tls";
import { DatabaseUrlError } from "../errors.ts";

/** sslmode's meaning here: prefer (and allow) fall back to plain TCP when the server has no TLS; verify-* check the certificate. */
export type TlsMode = "prefer" | "require" | "verify-ca" | "verify-full";

/** What a connection's TLS needs: the mode, and the PEM files libpq's parameters name, read once at start. */
export interface TlsSettings {
  mode: TlsMode;
  /** sslrootcert: the CAs the server's certificate must chain to (undefined: the CAs Deno trusts). */
  ca?: string;
  /** sslcert and sslkey (sslpassword): a client certificate, for servers that authenticate by it. */
  cert?: string;
  key?: string;
  passphrase?: string;
}

/**
 * libpq's client-side TLS parameters, read by the console and taken out of the URL the driver gets: the driver sends
 * every query parameter it does not know as a start-up parameter, which the server refuses.
 */
const CLIENT_PARAMS = ["sslrootcert", "sslcert", "sslkey", "sslpassword"];
/** libpq parameters the console does not implement: refused at start rather than silently ignored. */
const UNSUPPORTED_PARAMS = [
  "sslcrl",
  "sslcrldir",
  "sslcertmode",
  "ssl_min_protocol_version",
  "ssl_max_protocol_version",
  "channel_binding",
  "gssencmode",
];

/** The sslmode of a DATABASE_URL; undefined for none or `disable`. */
export function tlsMode(url: string): TlsMode | undefined {
  let mode: string | null;
  try {
    mode = new URL(url).searchParams.get("sslmode");
  } catch {
    return undefined;
  }
  if (!mode || mode === "disable" || mode === "false") return undefined;
  if (mode === "allow" || mode === "prefer") return "prefer";
  if (mode === "verify-ca" || mode === "verify-full") return mode;
  return "require";
}

/**
 * The TLS a DATABASE_URL asks for, libpq's way: `sslrootcert=<file>` makes `require` check the certificate's chain
 * (as verify-ca), `sslrootcert=system` asks for verify-full against the system's CAs. DatabaseUrlError for a file
 * that cannot be read or a parameter not implemented.
 */
export function tlsSettings(url: string): TlsSettings | undefined {
  let params: URLSearchParams;
  try {
    params = new URL(url).searchParams;
  } catch {
    return undefined;
  }
  const unsupported = UNSUPPORTED_PARAMS.filter((p) => params.has(p));
  if (unsupported.length) {
    throw new DatabaseUrlError(
      `${unsupported.join(", ")} ${
        unsupported.length > 1 ? "are" : "is"
      } not supported (TLS parameters supported: sslmode, ${CLIENT_PARAMS.join(", ")}).`,
    );
  }
  let mode = tlsMode(url);
  const rootcert = params.get("sslrootcert") ?? undefined;
  if (rootcert === "system") {
    if (mode === "prefer" || mode === "require") {
      throw new DatabaseUrlError(
        `sslrootcert=system needs sslmode=verify-full (or none), not ${params.get("sslmode")}.`,
      );
    }
    mode ??= "verify-full";
  }
  if (!mode) {
    const given = CLIENT_PARAMS.filter((p) => params.has(p));
    if (given.length) throw new DatabaseUrlError(`${given.join(", ")} without sslmode (say sslmode=verify-full).`);
    return undefined;
  }
  const cert = params.get("sslcert") ?? undefined;
  const key = params.get("sslkey") ?? undefined;
  if ((cert === undefined) !== (key === undefined)) throw new DatabaseUrlError("sslcert and sslkey go together.");
  const ca = rootcert && rootcert !== "system" ? readPem("sslrootcert", rootcert) : undefined;
  if (ca && mode === "require") mode = "verify-ca";
  return {
    mode,
    ...(ca ? { ca } : {}),
    ...(cert && key ? { cert: readPem("sslcert", cert), key: readPem("sslkey", key) } : {}),
    ...(params.has("sslpassword") ? { passphrase: params.get("sslpassword")! } : {}),
  };
}

/** The URL for the driver: libpq's client-side parameters taken out (the console reads them: tlsSettings). */
export function driverUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (!CLIENT_PARAMS.some((p) => parsed.searchParams.has(p))) return url;
  for (const p of CLIENT_PARAMS) parsed.searchParams.delete(p);
  return parsed.href;
}

function readPem(param: string, path: string): string {
  try {
    return Deno.readTextFileSync(path);
  } catch (err) {
    throw new DatabaseUrlError(`${param}=${path} cannot be read (${err instanceof Error ? err.message : err}).`);
  }
}

/** PostgreSQL's SSLRequest: length 8, code 80877103. */
const SSL_REQUEST = new Uint8Array([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);

/**
 * `raw` (connecting) with TLS negotiated on it: the TLS socket once its handshake is done, the plain one when the
 * server has none and `mode` is prefer. Never rejects (a rejected socket would leave the driver's connection slot in
 * "connecting"): on a failure (refused, no answer within `timeoutMs`, no TLS, a bad certificate) it answers a socket
 * that fails with that error and closes once the driver listens, so the driver fails its call and connects again.
 */
export function negotiated(
  raw: net.Socket,
  settings: TlsSettings,
  timeoutMs: number,
  secured: (socket: net.Socket) => void = () => {},
): Promise<net.Socket> {
  const { mode, ca, cert, key, passphrase } = settings;
  return new Promise((resolve) => {
    let done = false;
    const timer = setTimeout(
      () => fail(Object.assign(new Error("TLS to the database: no answer"), { code: "CONNECT_TIMEOUT" })),
      timeoutMs,
    );
    const finish = (socket: net.Socket) => {
      done = true;
      clearTimeout(timer);
      raw.off("data", onData).off("error", fail).off("close", onClose);
      resolve(socket);
    };
    const fail = (err: Error) => {
      if (done) return;
      finish(failing(err));
      raw.destroy();
    };
    const onClose = () => fail(Object.assign(new Error("connection closed"), { code: "ECONNRESET" }));
    const onData = (bytes: Uint8Array) => {
      raw.off("data", onData);
      if (bytes[0] !== 0x53) { // 'S'
        if (mode === "prefer") return finish(raw);
        return fail(
          Object.assign(new Error(`the database does not accept TLS (sslmode=${mode})`), { code: "08P01" }),
        );
      }
      const host = (raw as unknown as { host?: string }).host ?? "";
      const secure = tls.connect({
        socket: raw,
        host,
        servername: net.isIP(host) ? undefined : host,
        rejectUnauthorized: mode === "verify-ca" || mode === "verify-full",
        ...(ca ? { ca } : {}),
        ...(cert ? { cert, key, passphrase } : {}),
        ...(mode === "verify-ca" ? { checkServerIdentity: () => undefined } : {}),
      });
      Object.assign(secure, { host, port: (raw as unknown as { port?: number }).port });
      // A certificate refused (or any handshake failure) is the database out of reach: 503 while serving, one line at
      // start ("Cannot reach the database …"), with the reason.
      const handshakeFailed = (err: Error) => {
        secure.destroy();
        fail(Object.assign(new Error(`TLS to the database: ${err.message}`), { code: "08006", cause: err }));
      };
      secure.once("error", handshakeFailed);
      secure.once("secureConnect", () => {
        if (done) return secure.destroy();
        secure.off("error", handshakeFailed);
        secured(secure);
        finish(secure);
      });
    };
    raw.on("data", onData).once("error", fail).once("close", onClose);
    raw.write(SSL_REQUEST);
  });
}

/**
 * A socket that fails with `err` and closes, on a later turn (once the driver has put its listeners on); what the
 * driver writes on it meanwhile (its start-up message) is dropped, so that its calls fail with `err`.
 */
function failing(err: Error): net.Socket {
  const socket = new net.Socket();
  socket.write = () => true;
  setTimeout(() => socket.destroy(err), 0);
  return socket;
}
