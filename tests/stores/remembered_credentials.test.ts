/**
 * The operator's statement answered from memory on SQLite (server/db/sqlite/remembered_credentials.ts, changes.ts):
 * the same credential is answered from memory (the very same answer) until anything the statement reads changes —
 * through this connection (every write the operators and API tokens can see, the devices' counter), through another
 * connection of this process, and through another process (`deno task user reset-password`, as an operator runs it
 * beside the server) — and then the next call reads the new state.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { openStores } from "../../server/db/mod.ts";
import { hashPassword } from "../../server/auth/password.ts";
import { openReader, runSql } from "../../testing/sqlite_file.ts";

const EMAIL = "kept@example.com";
const HASH = "b".repeat(64);
const VERSION = { app: "1.0.0", os: "5.10.0", channels: ["1.2"] };

Deno.test("SQLite: the operator's statement is answered from memory until anything it reads changes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "remembered-" });
  const file = join(dir, "console.sqlite3");
  const stores = await openStores({ engine: "sqlite", file });
  const other = await openStores({ engine: "sqlite", file });
  try {
    const { operators, apiTokens, deviceApi, devices } = stores;
    const passwordHash = await hashPassword("kept-password-1");
    const owner = await operators.add(EMAIL, passwordHash, "operator");
    await operators.add("admin@example.com", passwordHash, "admin");
    const token = await apiTokens.create(owner._id, { name: "kept", scopes: ["read"], expiresAt: null }, HASH);

    // Kept: the same answer, frozen (every request shares it).
    let session = await operators.currentWithDevicesVersion(EMAIL);
    let api = await apiTokens.currentWithDevicesVersion(HASH);
    for (let i = 0; i < 5; i++) {
      assert.equal(await operators.currentWithDevicesVersion(EMAIL), session);
      assert.equal(await apiTokens.currentWithDevicesVersion(HASH), api);
    }
    assert.ok(Object.isFrozen(session.operator) && Object.isFrozen(api.found!.token.scopes));
    // An unknown credential is read each time (not kept).
    const nobody = await operators.currentWithDevicesVersion("nobody@example.com");
    assert.equal(nobody.operator, null);
    assert.notEqual(await operators.currentWithDevicesVersion("nobody@example.com"), nobody);

    /** Each change: the next call reads again and sees it; the one after is kept again. */
    const changed = async (what: string, change: () => Promise<unknown>, check: (pwv: number) => void) => {
      const pwv = session.operator!.passwordVersion;
      await change();
      const [s, a] = [
        await operators.currentWithDevicesVersion(EMAIL),
        await apiTokens.currentWithDevicesVersion(HASH),
      ];
      assert.notEqual(s, session, `${what}: the session's answer read again`);
      assert.notEqual(a, api, `${what}: the token's answer read again`);
      session = s, api = a;
      check(pwv);
      assert.equal(await operators.currentWithDevicesVersion(EMAIL), session, `${what}: kept again`);
    };
    const version = () => session.devicesVersion;

    // This connection's writes.
    await changed("role change", () => operators.update(owner._id, { role: "viewer" }), (pwv) => {
      assert.equal(session.operator!.role, "viewer");
      assert.equal(api.found!.owner.role, "viewer");
      assert.ok(session.operator!.passwordVersion > pwv);
    });
    await changed("password change", () => operators.setPassword(EMAIL, passwordHash), (pwv) => {
      assert.equal(session.operator!.passwordVersion, pwv + 1);
    });
    await changed("disabling", () => operators.update(owner._id, { disabled: true }), () => {
      assert.equal(session.operator!.disabled, true);
      assert.equal(api.found!.owner.disabled, true);
    });
    await changed("enabling", () => operators.update(owner._id, { disabled: false }), () => {
      assert.equal(session.operator!.disabled, false);
    });
    const at = new Date().toISOString();
    await changed("lastUsedAt", () => apiTokens.touch(token._id, at, at), () => {
      assert.equal(api.found!.token.lastUsedAt, at);
    });
    let before = version();
    await changed("a check-in (a new device)", () => deviceApi.checkin("kept-1", VERSION, "p"), () => {
      assert.ok(version() > before);
    });
    before = version();
    await changed("the last-seen flush", async () => {
      await deviceApi.checkin("kept-1", VERSION, "p"); // a quiet poll: its time is only noted
      await deviceApi.flushSeen();
    }, () => assert.ok(version() > before));
    before = version();
    await changed("a bulk preauthorization", () => devices.preauthorizeMany(["kept-2", "kept-3"]), () => {
      assert.ok(version() > before);
    });
    await changed("another token created", async () => {
      await apiTokens.create(owner._id, { name: "second", scopes: ["read"], expiresAt: null }, "c".repeat(64));
    }, () => {});

    // Another connection of this process: its own writes, and a bare connection without any of this.
    await changed(
      "another connection's password change",
      () => other.operators.setPassword(EMAIL, passwordHash),
      (pwv) => {
        assert.equal(session.operator!.passwordVersion, pwv + 1);
      },
    );
    before = version();
    await changed(
      "a bare connection's write to the counter",
      () => Promise.resolve(runSql(file, "UPDATE change_counters SET value = value + 7 WHERE name = 'devices'")),
      () => assert.equal(version(), before + 7),
    );

    // Another process: the operator's reset-password beside the running server.
    await changed("deno task user reset-password", async () => {
      const child = new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "server/user.ts", "reset-password", EMAIL],
        env: { DATA_DIR: dir, LOG_LEVEL: "quiet" },
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode("another-password-1\n"));
      await writer.close();
      const out = await child.output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    }, (pwv) => assert.equal(session.operator!.passwordVersion, pwv + 1));

    // Revoked: found no more (and so not kept).
    await changed(
      "revocation",
      () => apiTokens.revoke(token._id, { operatorId: owner._id, admin: false }),
      () => assert.equal(api.found, null),
    );
  } finally {
    await other.close();
    await stores.close();
    await Deno.remove(dir, { recursive: true });
  }
});

/** This process's descriptors open on `path` (Linux). */
const descriptors = (path: string) =>
  [...Deno.readDirSync("/proc/self/fd")].filter((e) => {
    try {
      return Deno.readLinkSync(`/proc/self/fd/${e.name}`).startsWith(path);
    } catch {
      return false;
    }
  }).length;

Deno.test({
  name: "SQLite: the -shm descriptor is shared by the stores of one file and closed after the last (never before)",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "remembered-" });
    const file = join(dir, "console.sqlite3");
    try {
      for (const order of [[0, 1], [1, 0]]) {
        const both = [await openStores({ engine: "sqlite", file }), await openStores({ engine: "sqlite", file })];
        // SQLite's own descriptor of the -shm (one per process) and the watch's (one per file).
        assert.equal(descriptors(`${file}-shm`), 2);
        await both[order[0]].close();
        // The other store's connection still holds SQLite's locks on the -shm: nothing of it is closed.
        assert.equal(descriptors(`${file}-shm`), 2);
        await both[order[1]].operators.count();
        await both[order[1]].close();
        assert.equal(descriptors(`${file}-shm`), 0, "closed once SQLite removed the file");
      }
      // A connection that is no store's (a stream's reader, say) still open when the store closes: the watch's
      // descriptor stays (closing it would drop that connection's locks), until a later watch ends after SQLite removed it.
      const stores = await openStores({ engine: "sqlite", file });
      const bare = openReader(file);
      await stores.close();
      assert.equal(descriptors(`${file}-shm`), 2);
      bare.close();
      // A read-only connection leaves the file; the watch's descriptor is closed once it is gone.
      assert.equal(descriptors(`${file}-shm`), 1);
      await Deno.remove(`${file}-shm`);
      const later = join(dir, "later.sqlite3");
      await (await openStores({ engine: "sqlite", file: later })).close();
      assert.equal(descriptors(`${file}-shm`), 0);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
