/**
 * A lean answer (server/lean_routes.ts) runs in the request's one scope (server/request_scope.ts), entered after the
 * poll's wait for its row where that read waits (PostgreSQL), with who acts as text: the scope must hold no part of the
 * request, since V8 keeps a scope's value while anything of the scope lives (docs/DECISIONS.md, "A request's scope
 * entered once, after its wait"). And what the scope carries is what it carried before: the request's id in the
 * store's calls and log lines, the device and its address in the audit trail.
 */
import assert from "node:assert/strict";
import { leanAnswers } from "../../server/lean_routes.ts";
import { currentAuditContext } from "../../server/db/audit_context.ts";
import { currentRequestId } from "../../server/lib/request_context.ts";
import { scopesEntered } from "../../server/request_scope.ts";
import type { DeviceApiStore } from "../../server/db/stores.ts";
import { DEVICE_KEY, testApp } from "./app.ts";

const VERSION = { app: "2.4.1", os: "5.10.0", channels: ["1.2"] };

interface Seen {
  call: string;
  requestId: string | undefined;
  actor?: unknown;
  ip?: unknown;
  /** Whether every property of the audit context is plain data (no getter that would keep the request). */
  plain?: boolean;
}

/** The device API's store, recording the scope each call of a poll runs in. */
function recording(store: DeviceApiStore, seen: Seen[]): DeviceApiStore {
  const scope = (call: string): Seen => {
    const ctx = currentAuditContext();
    return {
      call,
      requestId: currentRequestId(),
      actor: ctx.actor,
      ip: ctx.ip,
      plain: Object.values(Object.getOwnPropertyDescriptors(ctx)).every((d) => "value" in d),
    };
  };
  return {
    ...store,
    polledDevice: (id) => {
      seen.push({ call: "polledDevice", requestId: currentRequestId() });
      return store.polledDevice(id);
    },
    checkin: (...args) => (seen.push(scope("checkin")), store.checkin(...args)),
    checkinKnown: (...args) => (seen.push(scope("checkinKnown")), store.checkinKnown(...args)),
    ddiPoll: (...args) => (seen.push(scope("ddiPoll")), store.ddiPoll(...args)),
  };
}

for (const mode of ["shared", "token"] as const) {
  Deno.test(`request scope: a lean poll enters one scope, after its row's wait, holding text (DEVICE_AUTH=${mode})`, async () => {
    const seen: Seen[] = [];
    await using built = await testApp((ctx) => ({
      ...ctx,
      config: { ...ctx.config, DEVICE_AUTH: mode, DEVICE_ADMISSION: "auto", trustProxy: true },
      stores: { ...ctx.stores, deviceApi: recording(ctx.stores.deviceApi, seen) },
    }));
    let token = DEVICE_KEY;
    if (mode === "token") {
      const res = await built.app.request("/api/v1/device/scoped-1/enroll", {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Authorization: `Bearer ${DEVICE_KEY}`,
          "X-Forwarded-For": "10.7.7.7",
        },
        body: JSON.stringify({ versionInfo: VERSION }),
      });
      assert.equal(res.status, 201);
      token = (await res.json()).token;
    }
    const body = JSON.stringify({ versionInfo: VERSION });
    const checkin = (requestId: string) =>
      built.app.request("/api/v1/device/scoped-1/checkin", {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          "Content-Length": String(body.length),
          Authorization: `Bearer ${token}`,
          "X-Request-Id": requestId,
          "X-Forwarded-For": "10.7.7.7",
        },
        body,
      });
    const poll = (requestId: string) =>
      built.app.request("/DEFAULT/controller/v1/scoped-1", {
        headers: {
          Authorization: mode === "token" ? `TargetToken ${token}` : `GatewayToken ${DEVICE_KEY}`,
          "X-Request-Id": requestId,
          "X-Forwarded-For": "10.7.7.8",
        },
      });
    // The first check-in in shared mode creates the device (loud, audited) — on the lean path too.
    const first = await checkin("scope-first");
    assert.equal(first.status, 200);
    await first.body?.cancel();

    const reads = built.stores.deviceApi.pollsWait || mode === "token";
    for (
      const [name, send, call, ip] of [
        ["check-in", checkin, mode === "token" ? "checkinKnown" : "checkin", "10.7.7.7"],
        [
          "DDI poll",
          poll,
          "ddiPoll",
          "10.7.7.8",
        ],
      ] as const
    ) {
      for (let i = 0; i < 3; i++) {
        const id = `scope-${name.replace(/\W/g, "")}-${i}`;
        seen.length = 0;
        const [answers, scopes] = [leanAnswers(), scopesEntered()];
        const res = await send(id);
        assert.equal(res.status, 200, name);
        await res.body?.cancel();
        assert.equal(leanAnswers() - answers, 1, `${name}: answered by the lean path`);
        assert.equal(scopesEntered() - scopes, 1, `${name}: one scope for the whole request`);
        // The row's read, where the guard makes it, waits outside any scope; the store's call runs in the request's.
        const read = seen.find((s) => s.call === "polledDevice");
        if (reads) assert.deepEqual(read, { call: "polledDevice", requestId: undefined }, name);
        assert.deepEqual(seen.find((s) => s.call === call), {
          call,
          requestId: id,
          actor: { type: "device", id: "scoped-1", name: "scoped-1" },
          ip,
          plain: true,
        }, name);
      }
    }

    // The audit trail names the device and its address, as the Hono route records them.
    const api = await built.api();
    const entries = (await api.listAudit({})).data.filter((e) => e.actor.type === "device");
    assert.ok(entries.length > 0, "the device's first call is audited");
    for (const e of entries) {
      assert.deepEqual(e.actor, { type: "device", id: "scoped-1", name: "scoped-1" });
      assert.equal(e.ip, "10.7.7.7");
    }
  });
}
