/**
 * A TCP relay in front of a test server whose hooks may hold each chunk before it is passed on: the skeleton of the
 * tests' misbehaving links (tests/ops/holding_proxy.ts, tests/s3/assembly.test.ts). When the client goes away (or
 * is done), the server's side is closed, so the server sees its request cut; when the server closes, so does the client.
 */
export interface RelayHooks {
  /** Awaited before each chunk from the client goes to the server. */
  up?: (chunk: Uint8Array) => Promise<void> | void;
  /** Awaited before each chunk from the server goes to the client. */
  down?: (chunk: Uint8Array) => Promise<void> | void;
}

export interface TcpRelay extends AsyncDisposable {
  /** http://127.0.0.1:<port> of the relay. */
  url: string;
}

/** `hooks` is called for each connection, so its hooks may count what that connection passed. */
export function tcpRelay(target: string, hooks: () => RelayHooks): TcpRelay {
  const to = new URL(target);
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns = new Set<Deno.Conn>();
  const close = (c: Deno.Conn) => {
    conns.delete(c);
    try {
      c.close();
    } catch { /* closed */ }
  };
  const pass = async (from: Deno.Conn, to: Deno.Conn, hook?: RelayHooks["up"]) => {
    const writer = to.writable.getWriter();
    for await (const chunk of from.readable) {
      await hook?.(chunk);
      await writer.write(chunk);
    }
  };
  const serve = async (client: Deno.Conn) => {
    const server = await Deno.connect({ hostname: to.hostname, port: Number(to.port) });
    conns.add(client).add(server);
    const { up, down } = hooks();
    pass(server, client, down).catch(() => {}).finally(() => close(client));
    await pass(client, server, up).catch(() => {/* the client went away */});
    close(server);
  };
  (async () => {
    for await (const conn of listener) serve(conn).catch(() => {});
  })().catch(() => {});
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    [Symbol.asyncDispose]() {
      listener.close();
      for (const c of conns) close(c);
      return Promise.resolve();
    },
  };
}
