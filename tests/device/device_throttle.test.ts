/**
 * docs/REQUIREMENTS.md §19, "Clinics share an address": devices behind one NAT are many. Against the real server (both engines):
 * 30 bad tokens for one device from one address beside 10 good devices at that address (all 10 keep working, the bad
 * one gets 429), and in shared mode wrong DEVICE_API_KEYs answered 429 after the limit while the right key works.
 */
import assert from "node:assert/strict";
import { DEVICE_API_KEY, startServer, type TestServer } from "../../testing/server.ts";

const VERSION = { app: "1.0.0", os: "linux-6.1", channels: [] as string[] };

async function call(srv: TestServer, id: string, action: "enroll" | "checkin", key: string) {
  const res = await srv.fetch(`/api/v1/device/${id}/${action}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify({ versionInfo: VERSION }),
  });
  const json = await res.json();
  return { status: res.status, json, retryAfter: res.headers.get("retry-after") };
}

Deno.test("DEVICE_AUTH=token: 30 bad tokens of one device never stop 10 good devices behind the same address", async () => {
  await using srv = await startServer({ env: { DEVICE_AUTH: "token", DEVICE_ADMISSION: "auto" } });
  const good = new Map<string, string>();
  for (let i = 1; i <= 10; i++) {
    const issued = await call(srv, `clinic-${i}`, "enroll", DEVICE_API_KEY);
    assert.equal(issued.status, 201);
    good.set(`clinic-${i}`, issued.json.token);
  }
  const broken = await call(srv, "clinic-broken", "enroll", DEVICE_API_KEY);
  assert.equal(broken.status, 201);
  const everyGood = async () =>
    (await Promise.all([...good].map(([id, token]) => call(srv, id, "checkin", token)))).map((r) => r.status);

  // The broken device sends 30 stale tokens, in bursts among its neighbours' check-ins (all from 127.0.0.1).
  const statuses: number[] = [];
  for (let burst = 0; burst < 3; burst++) {
    const bad = Array.from({ length: 10 }, (_, i) => call(srv, "clinic-broken", "checkin", `tdd_stale${burst}-${i}`));
    const [wrong, neighbours] = await Promise.all([Promise.all(bad), everyGood()]);
    statuses.push(...wrong.map((r) => r.status));
    assert.deepEqual(neighbours, Array(10).fill(200), `burst ${burst}: every good device checks in`);
  }
  assert.deepEqual(statuses, Array(30).fill(401));

  // The 31st attempt of the broken device is refused unchecked, even with its right token, for a minute.
  const refused = await call(srv, "clinic-broken", "checkin", broken.json.token);
  assert.deepEqual([refused.status, refused.json.error], [429, "too_many_requests"]);
  assert.match(refused.json.msg, /device clinic-broken from this address; try again in (1 minute|\d+ seconds)/);
  assert.ok(Number(refused.retryAfter) >= 1 && Number(refused.retryAfter) <= 60, `Retry-After ${refused.retryAfter}`);
  assert.deepEqual(await everyGood(), Array(10).fill(200), "after the block, every good device still checks in");
  // A new device at the same address enrols and checks in.
  const fresh = await call(srv, "clinic-11", "enroll", DEVICE_API_KEY);
  assert.equal(fresh.status, 201);
  assert.equal((await call(srv, "clinic-11", "checkin", fresh.json.token)).status, 200);
});

Deno.test("DEVICE_AUTH=shared: wrong keys get 429 after the limit, the right key always checks in", async () => {
  await using srv = await startServer();
  const wrong = [];
  for (let i = 0; i < 30; i++) {
    wrong.push((await call(srv, `shared-${i}`, "checkin", "wrong-shared-key-012345")).status);
  }
  assert.deepEqual(wrong, Array(30).fill(401));
  const refused = await call(srv, "shared-x", "checkin", "wrong-shared-key-012345");
  assert.deepEqual([refused.status, refused.json.error], [429, "too_many_requests"]);
  assert.match(refused.json.msg, /Too many wrong device keys from this address; try again in/);
  assert.ok(Number(refused.retryAfter) >= 1);
  // The fleet behind the same address is never refused: the right key is checked first.
  const right = await Promise.all(
    Array.from({ length: 10 }, (_, i) => call(srv, `shared-${i}`, "checkin", DEVICE_API_KEY)),
  );
  assert.deepEqual(right.map((r) => r.status), Array(10).fill(200));
  assert.equal((await call(srv, "shared-y", "checkin", "another-wrong-key-0123")).status, 429);
});
