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

/** sslmode's meaning here: prefer (and allow) fall back to plain TCP when the server has no TLS; verify-* check the certificate. */
export type TlsMode = "prefer" | "require" | "verify-ca" | "verify-full";

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
  mode: TlsMode,
  timeoutMs: number,
  secured: (socket: net.Socket) => void = () => {},
): Promise<net.Socket> {
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
        ...(mode === "verify-ca" ? { checkServerIdentity: () => undefined } : {}),
      });
      Object.assign(secure, { host, port: (raw as unknown as { port?: number }).port });
      const handshakeFailed = (err: Error) => {
        secure.destroy();
        fail(err);
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
