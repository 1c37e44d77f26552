/**
 * The audit trail over HTTP (docs/REQUIREMENTS.md §12): an entry for each action, none for a refused request, GET audit with its
 * filters and roles, the CSV, and `deno task audit-verify` catching an entry edited in the database.
 */
import assert from "node:assert/strict";
import type { AuditEntry, AuditList } from "../../shared/schemas/audit.ts";
import { runSql } from "../../testing/sqlite_file.ts";
import { bytesSource } from "../../testing/files.ts";
import { generateTreatments, makeImportDb } from "../../testing/import_db.ts";
import { xzBytes } from "../../testing/xz_fixtures.ts";
import { pgQuery } from "../../testing/postgres.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD, DEVICE_API_KEY, startServer, type TestServer } from "../../testing/server.ts";
import { auditVerify } from "../helpers/audit_verify.ts";

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

async function sha256Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
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
      before: { firmware: null },
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

  await t.step("operators, passwords, product types, device types, firmwares, imports", async () => {
    const api = await srv.login();
    const before = (await latest(srv, admin, 1))[0].seq;
    const created = await call(srv, admin, "POST", "/api/v1/operators", {
      email: "op@example.com",
      password: "op-pass-123",
    });
    assert.equal(created.status, 201);
    const opId = created.json._id;
    await call(srv, admin, "PATCH", `/api/v1/operators/${opId}`, { role: "viewer" });
    await call(srv, admin, "POST", `/api/v1/operators/${opId}/reset_password`, { password: "op-pass-456" });
    const op = (await signIn(srv, "op@example.com", "op-pass-456")).json.token;
    assert.equal(
      (await call(srv, op, "POST", "/api/v1/change_password", {
        old_password: "op-pass-456",
        new_password: "op-pass-789",
      })).status,
      200,
    );
    const pt = await api.createProductType("Audited type");
    const saved = await api.patchProductType({
      _id: pt._id,
      name: "Audited type 2",
      modules: [{ name: "M1", isDefault: false, treatmentIds: [] }],
    });
    await api.deleteProductType(pt._id);
    const fw = await api.uploadFirmware(bytesSource("audited.xz", xzBytes("audited firmware")));
    const [type] = await api.listDeviceTypes();
    await api.patchDeviceType({ _id: type._id, defaultFirmware: fw._id });
    await api.patchDeviceType({ _id: type._id, defaultFirmware: null });
    await api.deleteFirmware(fw._id);
    const file = `${srv.dataDir}/audited.sqlite3`;
    makeImportDb(file, generateTreatments(3, { phases: 1, channels: 1, namePrefix: "Audited" }));
    const bytes = await Deno.readFile(file);
    await api.importTreatments(bytesSource("audited.sqlite3", bytes));

    const entries = (await latest(srv, admin, 100)).filter((e) => e.seq > before).reverse();
    const opTarget = { type: "operator", id: opId, name: "op@example.com" };
    const summary = entries.map((e) => [e.action, e.actor.name, e.target]);
    assert.deepEqual(summary, [
      ["operator.create", ADMIN_EMAIL, opTarget],
      ["operator.update", ADMIN_EMAIL, opTarget],
      ["operator.reset_password", ADMIN_EMAIL, opTarget],
      ["auth.sign_in", "op@example.com", opTarget],
      ["auth.password_change", "op@example.com", opTarget],
      ["product_type.create", ADMIN_EMAIL, { type: "product_type", id: pt._id, name: "Audited type" }],
      ["product_type.update", ADMIN_EMAIL, { type: "product_type", id: pt._id, name: "Audited type 2" }],
      ["product_type.delete", ADMIN_EMAIL, { type: "product_type", id: pt._id, name: "Audited type 2" }],
      ["firmware.upload", ADMIN_EMAIL, { type: "firmware", id: fw._id, name: "audited.xz" }],
      ["device_type.update", ADMIN_EMAIL, { type: "device_type", id: type._id, name: type.name }],
      ["device_type.update", ADMIN_EMAIL, { type: "device_type", id: type._id, name: type.name }],
      ["firmware.delete", ADMIN_EMAIL, { type: "firmware", id: fw._id, name: "audited.xz" }],
      ["treatments.import", ADMIN_EMAIL, {
        type: "treatments",
        id: await sha256Hex(bytes),
        name: "audited.sqlite3",
      }],
    ]);
    const byAction = Object.fromEntries(entries.map((e) => [e.action, e.details]));
    assert.deepEqual(byAction["operator.create"], { role: "operator" });
    assert.deepEqual(byAction["operator.update"], {
      changes: { role: "viewer" },
      before: { role: "operator", disabled: false },
    });
    assert.deepEqual(byAction["firmware.upload"], {
      size: fw.size,
      sha256: fw.sha256,
      signature: null,
      approval: "not_required",
    });
    assert.deepEqual(byAction["treatments.import"], {
      imported: 3,
      created: 3,
      updated: 0,
      file: { name: "audited.sqlite3", size: bytes.byteLength, sha256: await sha256Hex(bytes) },
    });
    const ptUpdate = byAction["product_type.update"] as { changes: { modules: unknown[] }; before: unknown };
    assert.deepEqual(ptUpdate.before, { name: "Audited type", modules: [] });
    assert.equal(ptUpdate.changes.modules.length, 1);
    assert.equal(saved.modules.length, 1);
    for (const e of entries) {
      for (const secret of ["op-pass-123", "op-pass-456", "op-pass-789"]) {
        assert.ok(!JSON.stringify(e).includes(secret), `${e.action} holds a password`);
      }
    }
  });

  await t.step("refused requests (403, 409) leave no entry either", async () => {
    await call(srv, admin, "POST", "/api/v1/operators", {
      email: "reader@example.com",
      role: "viewer",
      password: "reader-pass-1",
    });
    const reader = (await signIn(srv, "reader@example.com", "reader-pass-1")).json.token;
    await call(srv, admin, "POST", "/api/v1/product_types", { name: "Taken" });
    const before = (await latest(srv, admin, 1))[0].seq;
    const statuses = [
      (await call(srv, reader, "PATCH", "/api/v1/devices/AUD-2", { deviceId: "AUD-2", firmware: null })).status,
      (await call(srv, reader, "POST", "/api/v1/product_types", { name: "By a viewer" })).status,
      (await call(srv, admin, "POST", "/api/v1/product_types", { name: "taken" })).status,
      (await call(srv, admin, "POST", "/api/v1/operators", { email: "op@example.com", password: "x-pass-123" })).status,
    ];
    assert.deepEqual(statuses, [403, 403, 409, 409]);
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
