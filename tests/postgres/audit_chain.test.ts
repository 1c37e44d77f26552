/**
 * The audit trail on several replicas (docs/REQUIREMENTS.md §12, §10): writers on two servers at once append to one chain, numbered
 * without gaps, that `deno task audit-verify` finds intact.
 */
import assert from "node:assert/strict";
import type { AuditEntry } from "../../shared/schemas/audit.ts";
import { testDatabaseUrl } from "../../testing/postgres.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD, DEVICE_API_KEY, startServer } from "../../testing/server.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

Deno.test("replicas: concurrent writers on two servers keep one audit chain", async () => {
  const url = await testDatabaseUrl();
  await using a = await startServer({ env: { DATABASE_URL: url } });
  await using b = await startServer({ env: { DATABASE_URL: url } });
  const [ta, tb] = [(await a.login()).token, (await b.login()).token];
  const devices = Array.from({ length: 10 }, (_, i) => `CHAIN-${i}`);
  for (const id of devices) {
    const r = await a.fetch(`/api/v1/device/${id}/checkin`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${DEVICE_API_KEY}` },
      body: JSON.stringify({ versionInfo: { app: "1", os: "1", channels: [] } }),
    });
    assert.equal(r.status, 200);
    await r.body?.cancel();
  }
  const before = await (await a.fetch("/api/v1/audit?rowsPerPage=1", { token: ta })).json();

  // 10 devices × 6 patches, alternating replicas, all at once; sign-ins (success and failure) in between.
  const jobs: Promise<number>[] = [];
  for (let round = 0; round < 6; round++) {
    for (const [i, id] of devices.entries()) {
      const [srv, token] = (i + round) % 2 ? [a, ta] : [b, tb];
      jobs.push(
        srv.fetch(`/api/v1/devices/${id}`, {
          method: "PATCH",
          token,
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ deviceId: id, firmware: null }),
        }).then(async (r) => (await r.body?.cancel(), r.status)),
      );
    }
    const srv = round % 2 ? a : b;
    jobs.push(
      srv.fetch("/api/v1/login", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: ADMIN_EMAIL, password: round % 3 ? ADMIN_PASSWORD : "wrong-password" }),
      }).then(async (r) => (await r.body?.cancel(), r.status)),
    );
  }
  const statuses = await Promise.all(jobs);
  // Every patch goes through; a sign-in is 200 or 401 (each recorded), or 429 when the throttle refuses it (not).
  assert.ok(statuses.slice(0, 10).every((s) => s === 200), JSON.stringify(statuses));
  const recorded = statuses.filter((s) => s === 200 || s === 401).length;
  assert.ok(recorded >= 62, JSON.stringify(statuses));

  const page = await (await b.fetch("/api/v1/audit?rowsPerPage=100", { token: tb })).json();
  const added = page.total - before.total;
  assert.equal(added, recorded);
  const seqs = (page.data as AuditEntry[]).map((e) => e.seq);
  assert.deepEqual(seqs, Array.from({ length: seqs.length }, (_, i) => page.total - i));

  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}scripts/audit_verify.ts`],
    cwd: ROOT,
    env: { DATABASE_URL: url },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const out = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
  assert.equal(code, 0, out);
  assert.match(out, new RegExp(`Audit trail intact: ${page.total} entries`));
});
