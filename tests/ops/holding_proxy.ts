/**
 * A TCP proxy in front of a test server, like a slow link: the first `passBytes` of each connection pass at once,
 * then one chunk (≤ 64 KiB) every TRICKLE_MS, ≤ 8 MiB/s. An upload of tens of MiB through it stays in flight for
 * seconds (the server has part of the body); when its client goes away, the proxy passes that on by closing the
 * server's side once the few MiB the sockets buffer have gone through.
 */
const TRICKLE_MS = 8;

export interface HoldingProxy extends AsyncDisposable {
  url: string;
  /** Resolves when a connection first goes past passBytes (an upload is slowed mid-body). */
  holding: Promise<void>;
}

export function holdingProxy(target: string, passBytes: number): HoldingProxy {
  const to = new URL(target);
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns = new Set<Deno.Conn>();
  let held!: () => void;
  const holding = new Promise<void>((r) => held = r);

  const close = (c: Deno.Conn) => {
    conns.delete(c);
    try {
      c.close();
    } catch { /* closed */ }
  };
  const serve = async (client: Deno.Conn) => {
    const server = await Deno.connect({ hostname: to.hostname, port: Number(to.port) });
    conns.add(client).add(server);
    // Answers flow back freely.
    server.readable.pipeTo(client.writable, { preventClose: true }).catch(() => {}).finally(() => close(client));
    let passed = 0;
    const writer = server.writable.getWriter();
    try {
      for await (const chunk of client.readable) {
        if (passed >= passBytes) {
          held();
          await new Promise((r) => setTimeout(r, TRICKLE_MS));
        }
        await writer.write(chunk);
        passed += chunk.length;
      }
    } catch { /* the client went away */ }
    close(server); // the client is gone (or done): the server sees its request cut
  };
  (async () => {
    for await (const conn of listener) serve(conn).catch(() => {});
  })().catch(() => {});

  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    holding,
    [Symbol.asyncDispose]() {
      listener.close();
      for (const c of conns) close(c);
      return Promise.resolve();
    },
  };
}
