/**
 * The watchdog of server/db/postgres/watchdog.ts on its own: a slow call on a server that answers its probe is left
 * alone; a call on a server that answers nothing has the pool's sockets ended (its call fails) within the 2 s.
 * tests/postgres/fault_replicas.test.ts runs it against a real frozen PostgreSQL.
 */
import assert from "node:assert/strict";
import { PROBE_MS, Sockets, SUSPECT_MS, Watchdog } from "../../server/db/postgres/watchdog.ts";

Deno.test("watchdog: a slow call on a live server goes on; on a silent one the pool's sockets are ended", async () => {
  // A server that accepts connections and never answers (a frozen one, as TCP sees it).
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const accepted: Deno.Conn[] = [];
  (async () => {
    for await (const conn of listener) accepted.push(conn);
  })();
  const sockets = new Sockets();
  const socket = sockets.create({ host: ["127.0.0.1"], port: [(listener.addr as Deno.NetAddr).port] });
  const ended = new Promise<Error>((resolve) => socket.on("error", resolve));
  let answers = true;
  let probes = 0;
  const dog = new Watchdog(() => {
    probes++;
    return answers ? Promise.resolve() : new Promise(() => {});
  }, [sockets]);
  try {
    await dog.watch(new Promise((resolve) => setTimeout(resolve, SUSPECT_MS * 2 + PROBE_MS)));
    assert.ok(probes >= 1, "a slow call makes the watchdog ask");
    assert.equal(sockets.size, 1, "the server answered: its connection is kept");
    assert.equal(socket.destroyed, false);

    answers = false;
    const started = performance.now();
    // The call fails when its socket is ended, as the driver's calls do.
    await assert.rejects(dog.watch(ended.then((err) => Promise.reject(err))), /did not answer/);
    const ms = performance.now() - started;
    console.log(`silent server: the call failed after ${ms.toFixed(0)} ms`);
    assert.ok(ms >= SUSPECT_MS, `failed after ${ms} ms: too early`);
    assert.ok(ms <= 2_500, `failed after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(sockets.size, 0);
    assert.equal(socket.destroyed, true);
  } finally {
    dog.close();
    listener.close();
    for (const conn of accepted) conn.close();
  }
});
