/**
 * The watchdog of server/db/postgres/watchdog.ts on its own: a slow call on a server that answers its probe is left
 * alone; a call on a server that answers nothing has the pool's sockets ended (its call fails) within the 2 s, and
 * from then on calls are refused at once while one probe waits, until it is answered; bytes the server sends on a
 * pool's connection count as its answer. tests/postgres/fault_replicas.test.ts runs it against a real frozen
 * PostgreSQL.
 */
import assert from "node:assert/strict";
import { PROBE_MS, REASK_MS, Sockets, SUSPECT_MS, Watchdog } from "../../server/db/postgres/watchdog.ts";

/** A server that accepts connections and answers nothing by itself (a frozen one, as TCP sees it), and a pool's socket to it. */
function silentServer() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const accepted: Deno.Conn[] = [];
  (async () => {
    for await (const conn of listener) accepted.push(conn);
  })();
  const sockets = new Sockets();
  const socket = sockets.create({ host: ["127.0.0.1"], port: [(listener.addr as Deno.NetAddr).port] });
  const close = () => {
    listener.close();
    for (const conn of accepted) conn.close();
  };
  return { accepted, sockets, socket, close };
}

Deno.test("watchdog: a slow call on a live server goes on; on a silent one the pool's sockets are ended", async () => {
  const server = silentServer();
  const { sockets, socket } = server;
  const ended = new Promise<Error>((resolve) => socket.on("error", resolve));
  let answers = true;
  let probes = 0;
  let wake = () => {};
  const dog = new Watchdog(() => {
    probes++;
    return answers ? Promise.resolve() : new Promise<void>((resolve) => wake = resolve);
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

    // Taken for frozen: calls refused at once; the probe left unanswered is waited on, not asked again (on a real
    // connection, ended with the others, it fails and one new probe is asked).
    assert.equal(dog.frozen, true);
    assert.throws(() => dog.refuse(), /did not answer/);
    const asked = probes;
    await new Promise((resolve) => setTimeout(resolve, PROBE_MS * 3));
    assert.equal(probes, asked, "while frozen, the one unanswered probe is waited on");
    assert.equal(dog.frozen, true);
    // ... for REASK_MS at most: a probe neither answered nor failed is not waited on for ever.
    await new Promise((resolve) => setTimeout(resolve, REASK_MS - PROBE_MS * 3 + 500));
    assert.equal(probes, asked + 1, "asked again after REASK_MS");
    assert.equal(dog.frozen, true);
    answers = true;
    wake();
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(dog.frozen, false, "the probe's answer ends the frozen state");
    dog.refuse();
  } finally {
    dog.close();
    server.close();
  }
});

Deno.test("watchdog: bytes from the server on a pool's connection count as the probe's answer", async () => {
  // A server that answers no probe but sends a byte on the pool's connection while the probe waits (a thaw: the
  // connections made meanwhile are answered before the probe's own).
  const server = silentServer();
  const { accepted, sockets, socket } = server;
  socket.on("error", () => {});
  let probes = 0;
  const dog = new Watchdog(() => {
    probes++;
    return new Promise(() => {});
  }, [sockets]);
  try {
    const call = new Promise((resolve) => setTimeout(resolve, SUSPECT_MS + PROBE_MS * 2));
    setTimeout(() => accepted[0]?.write(new Uint8Array([0x4e])), SUSPECT_MS + PROBE_MS / 2);
    await dog.watch(call);
    assert.ok(probes >= 1, "a slow call makes the watchdog ask");
    assert.equal(dog.frozen, false);
    assert.equal(socket.destroyed, false, "the server sent bytes: its connection is kept");
  } finally {
    dog.close();
    socket.destroy();
    server.close();
  }
});
