/**
 * The audit trail over HTTP (CONTRACT §12): an entry for each action, none for a refused request, GET audit with its
 * filters and roles, the CSV, and `deno task audit-verify` catching an entry edited in the database.
 */
import assert from "node:assert/strict";
import type { AuditEntry, AuditList } from "../../shared/schemas/audit.ts";
import { runSql } from "../../testing/sqlite_file.ts";
import { pgQuery } from "../../testing/postgres.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD, DEVICE_API_KEY, startServer, type TestServer } from "../../testing/server.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

async function call(srv: TestServer, token: string, method: string, path: string, body?: unknown, headers = {}) {
  const res = await srv.fetch(path, {
    method,
    token,
    headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const isJson = res.headers.get("content-type")?.includes("json");
  return { status: res.status, json: text && isJson ? JSON.parse(text) : null, text, headers: res.headers };
}

const signIn = (srv: TestServer, email: string, password: string) =>
  call(srv, "", "POST", "/api/v1/login", { email, password });

const checkin = (srv: TestServer, deviceId: string) =>
  srv.fetch(`/api/v1/device/${deviceId}/checkin`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${DEVICE_API_KEY}` },
    body: JSON.stringify({ versionInfo: { app: "1.0.0", os: "linux", channels: [] } }),
  }).then(async (r) => {
    assert.equal(r.status, 200);
    await r.body?.cancel();
  });

/** The newest entries (newest first). */
async function latest(srv: TestServer, token: string, n = 100, query = ""): Promise<AuditEntry[]> {
  const r = await call(srv, token, "GET", `/api/v1/audit?rowsPerPage=${n}${query}`);
  assert.equal(r.status, 200, r.text);
  return (r.json as AuditList).data;
}

/** Runs `deno task audit-verify` against the server's database. */
async function auditVerify(srv: TestServer): Promise<{ code: number; out: string }> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}scripts/audit_verify.ts`],
    cwd: ROOT,
    env: { DATA_DIR: srv.dataDir, ...srv.engineEnv },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const d = new TextDecoder();
  return { code, out: d.decode(stdout) + d.decode(stderr) };
}

/** Runs SQL on the server's database behind its back. */
async function tamper(srv: TestServer, text: string): Promise<void> {
  if (srv.engineEnv.DATABASE_URL) await pgQuery(srv.engineEnv.DATABASE_URL, text);
  else runSql(`${srv.dataDir}/console.sqlite3`, text);
}

Deno.test("audit trail over HTTP: entries for actions, none for refusals; filters, roles, CSV, audit-verify", async (t) => {
  await using srv = await startServer();
  const admin = (await signIn(srv, ADMIN_EMAIL, ADMIN_PASSWORD)).json.token as string;
  const adminId = (await latest(srv, admin, 1))[0].actor.id;

  await t.step("sign-in success and failure; never the password", async () => {
    const before = (await latest(srv, admin, 1))[0].seq;
    assert.equal((await signIn(srv, ADMIN_EMAIL, "wrong-password-42")).status, 401);
    assert.equal((await signIn(srv, "nobody@example.com", "another-secret-77")).status, 401);
    assert.equal((await signIn(srv, ADMIN_EMAIL, ADMIN_PASSWORD)).status, 200);
    const [ok, unknown, wrong] = await latest(srv, admin, 3);
    assert.equal(wrong.seq, before + 1);
    assert.deepEqual(
      [wrong.action, wrong.actor.name, wrong.target, wrong.details],
      [
        "auth.sign_in_failed",
        ADMIN_EMAIL,
        { type: "operator", id: adminId, name: ADMIN_EMAIL },
        { email: ADMIN_EMAIL, reason: "wrong_password" },
      ],
    );
    assert.equal(wrong.ip, "127.0.0.1");
    assert.deepEqual([unknown.action, unknown.target, unknown.details.reason], [
      "auth.sign_in_failed",
      null,
      "unknown_email",
    ]);
    assert.deepEqual([ok.action, ok.actor], ["auth.sign_in", { type: "operator", id: adminId, name: ADMIN_EMAIL }]);
    const csv = await call(srv, admin, "GET", "/api/v1/audit.csv");
    for (const secret of ["wrong-password-42", "another-secret-77", ADMIN_PASSWORD]) {
      assert.ok(!csv.text.includes(secret), `the trail holds a password: ${secret}`);
    }
  });

  await t.step("device create (by the device), update and delete (by the operator)", async () => {
    await checkin(srv, "AUD-1");
    await checkin(srv, "AUD-1");
    const etag = (await call(srv, admin, "GET", "/api/v1/devices/AUD-1")).headers.get("etag")!;
    const patched = await call(srv, admin, "PATCH", "/api/v1/devices/AUD-1", { deviceId: "AUD-1", firmware: null }, {
      "if-match": etag,
    });
    assert.equal(patched.status, 200);
    assert.equal((await call(srv, admin, "DELETE", "/api/v1/devices/AUD-1")).status, 204);
    const [del, upd, create] = await latest(srv, admin, 3);
    assert.deepEqual([create.action, create.actor, create.target?.id], [
      "device.create",
      { type: "device", id: "AUD-1", name: "AUD-1" },
      "AUD-1",
    ]);
    assert.deepEqual([upd.action, upd.actor.name, upd.details], ["device.update", ADMIN_EMAIL, {
      changes: { firmware: null },
    }]);
    assert.deepEqual([del.action, del.target], ["device.delete", { type: "device", id: "AUD-1", name: "AUD-1" }]);
  });

  await t.step("refused requests (400, 403, 404, 412) leave no entry", async () => {
    await checkin(srv, "AUD-2");
    const before = (await latest(srv, admin, 1))[0].seq;
    const statuses = [
      (await call(srv, admin, "PATCH", "/api/v1/devices/AUD-2", { deviceId: "AUD-2", firmware: "nope" })).status,
      (await call(srv, admin, "PATCH", "/api/v1/devices/NOPE", { deviceId: "NOPE", firmware: null })).status,
      (await call(srv, admin, "DELETE", "/api/v1/devices/AUD-2", undefined, { "if-match": '"1"' })).status,
      (await call(srv, admin, "DELETE", "/api/v1/devices/NOPE")).status,
    ];
    assert.deepEqual(statuses, [400, 404, 412, 404]);
    assert.equal((await latest(srv, admin, 1))[0].seq, before);
  });

  await t.step("GET audit: filters, paging, 400 for a bad filter; viewers 403", async () => {
    const all = await latest(srv, admin, 100);
    const page = await call(srv, admin, "GET", "/api/v1/audit?rowsPerPage=2&page=1");
    assert.deepEqual(page.json.data.map((e: AuditEntry) => e.seq), [all[2].seq, all[3].seq]);
    assert.deepEqual([page.json.total, page.json.exact, page.json.page, page.json.per_page], [all.length, true, 1, 2]);
    const byAction = await latest(srv, admin, 100, "&action=device.create");
    assert.deepEqual(byAction.map((e) => e.target?.id), ["AUD-2", "AUD-1"]);
    const byTarget = await latest(srv, admin, 100, "&targetType=device&targetId=AUD-1");
    assert.deepEqual(byTarget.map((e) => e.action), ["device.delete", "device.update", "device.create"]);
    const byActor = await latest(srv, admin, 100, `&actor=${encodeURIComponent(ADMIN_EMAIL)}&action=device.update`);
    assert.equal(byActor.length, 1);
    const future = await latest(srv, admin, 100, "&from=2999-01-01");
    assert.deepEqual(future, []);
    for (const q of ["action=device.explode", "from=yesterday", "rowsPerPage=0", "page=-1", "targetId="]) {
      const r = await call(srv, admin, "GET", `/api/v1/audit?${q}`);
      assert.equal(r.status, 400, q);
      assert.equal(r.json.error, "invalid_request");
    }
    await call(srv, admin, "POST", "/api/v1/operators", {
      email: "viewer@example.com",
      role: "viewer",
      password: "viewer-pass-1",
    });
    const viewer = (await signIn(srv, "viewer@example.com", "viewer-pass-1")).json.token;
    assert.equal((await call(srv, viewer, "GET", "/api/v1/audit")).status, 403);
    assert.equal((await call(srv, viewer, "GET", "/api/v1/audit.csv")).status, 403);
  });

  await t.step("GET audit.csv: a header and one line per entry, filtered alike", async () => {
    const all = await latest(srv, admin, 100);
    const csv = await call(srv, admin, "GET", "/api/v1/audit.csv");
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get("content-type")!, /^text\/csv/);
    assert.match(csv.headers.get("content-disposition")!, /^attachment; filename="audit-.*\.csv"$/);
    const lines = csv.text.trimEnd().split("\r\n");
    assert.equal(
      lines[0],
      "seq,_id,at,actor_type,actor_id,actor_name,action,target_type,target_id,target_name,details,ip,hash",
    );
    assert.equal(lines.length, all.length + 1);
    assert.ok(lines[1].startsWith(`${all[0].seq},${all[0]._id},`));
    const filtered = await call(srv, admin, "GET", "/api/v1/audit.csv?action=device.create");
    assert.equal(filtered.text.trimEnd().split("\r\n").length, 3);
    assert.equal((await call(srv, admin, "GET", "/api/v1/audit.csv?action=nope")).status, 400);
  });

  await t.step("audit-verify: intact, then names the entry edited in the database", async () => {
    const ok = await auditVerify(srv);
    assert.equal(ok.code, 0, ok.out);
    assert.match(ok.out, /Audit trail intact: \d+ entries/);
    const target = (await latest(srv, admin, 100, "&action=device.update"))[0];
    await tamper(srv, `UPDATE audit_entries SET details = '{"changes":{"firmware":"evil"}}' WHERE seq = ${target.seq}`);
    const bad = await auditVerify(srv);
    assert.equal(bad.code, 1, bad.out);
    assert.match(bad.out, new RegExp(`BROKEN at entry ${target.seq} \\(_id ${target._id}\\)`));
  });
});
