/**
 * A slow network link in front of a test server: a TCP relay whose answers (server → client) flow at no more than
 * `bytesPerSecond`, requests untouched. A device behind it downloads slowly, so a test can act while a real agent is
 * mid-download (SWUpdate 2022.12's own `-n` rate limit has no effect: it hands curl an int where curl reads 64 bits).
 * The bytes are relayed as they are: the server sees the relay's address in Host, and builds its links with it.
 *
 *   await using link = await startSlowLink(srv.url, 48 * 1024); // link.url instead of srv.url
 */

export interface SlowLink extends AsyncDisposable {
  /** http://127.0.0.1:<port> of the relay. */
  url: string;
  close(): Promise<void>;
}

const SLICE = 4096;

export function startSlowLink(target: string, bytesPerSecond: number): Promise<SlowLink> {
  const { hostname, port } = new URL(target);
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const open = new Set<Deno.Conn>();
  const relays: Promise<void>[] = [];

  const relay = async (client: Deno.Conn) => {
    let server: Deno.Conn;
    try {
      server = await Deno.connect({ hostname, port: Number(port) });
    } catch {
      client.close();
      return;
    }
    open.add(client);
    open.add(server);
    const closeBoth = () => {
      for (const c of [client, server]) {
        if (open.delete(c)) {
          try {
            c.close();
          } catch { /* closed */ }
        }
      }
    };
    const up = (async () => {
      const buf = new Uint8Array(64 * 1024);
      for (;;) {
        const n = await client.read(buf);
        if (n === null) break;
        await writeAll(server, buf.subarray(0, n));
      }
    })();
    const down = (async () => {
      const buf = new Uint8Array(SLICE);
      // When the link is free again; idle time earns no burst.
      let free = performance.now();
      for (;;) {
        const n = await server.read(buf);
        if (n === null) break;
        await writeAll(client, buf.subarray(0, n));
        free = Math.max(free, performance.now()) + (n / bytesPerSecond) * 1000;
        const wait = free - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
    })();
    await Promise.race([up, down]).catch(() => {});
    closeBoth();
    await Promise.allSettled([up, down]);
  };

  const accepting = (async () => {
    for (;;) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
      } catch {
        return;
      }
      relays.push(relay(conn).catch(() => {}));
    }
  })();

  const addr = listener.addr as Deno.NetAddr;
  const link: SlowLink = {
    url: `http://127.0.0.1:${addr.port}`,
    async close() {
      try {
        listener.close();
      } catch { /* closed */ }
      for (const c of open) {
        try {
          c.close();
        } catch { /* closed */ }
      }
      open.clear();
      await accepting;
      await Promise.allSettled(relays);
    },
    [Symbol.asyncDispose]: () => link.close(),
  };
  return Promise.resolve(link);
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array) {
  for (let off = 0; off < bytes.length;) off += await conn.write(bytes.subarray(off));
}
