/**
 * Audit of hostile concurrency: racing uploads and creations of one name have one winner, a module removed while a
 * device enables it never stays on the device, and an upload aborted mid-body (on every upload route of the
 * route table) leaves no file behind.
 */
import { fixedLengthFetch } from "../../shared/fixed_length_fetch.ts";
import assert from "node:assert/strict";
import { routes } from "../../shared/routes/mod.ts";
import { type Json, multipart } from "../helpers/hostile.ts";
import { listFiles } from "../../testing/server.ts";
import { jsonRoute, uploadRoutes } from "./samples.ts";
import { assertNoInternalErrors, describe, Findings, sane, send, snapshot, startAudit, xzBytes } from "./setup.ts";

Deno.test("audit: concurrency", async (t) => {
  await using s = await startAudit();
  const { srv } = s;

  await t.step("hostile concurrency and aborted uploads: one winner, no 500, no stray file", async () => {
    const f = new Findings();
    const before = await snapshot(s);

    // The same firmware name uploaded six times at once: one 201, five 409.
    const race = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        send(srv, "POST", "/api/v1/device_firmwares", {
          token: s.token,
          body: multipart("race", [{ name: "file", filename: "race.xz", data: xzBytes(`race ${i}`) }]),
          contentType: "multipart/form-data; boundary=race",
        })),
    );
    race.forEach((r, i) => sane(f, `race upload ${i}`, r));
    f.check("race uploads", () => {
      assert.deepEqual(race.map((r) => r.status).sort(), [201, 409, 409, 409, 409, 409]);
    });
    const winner = race.find((r) => r.status === 201)?.json as { _id: string } | undefined;
    if (winner) {
      const r = await send(srv, "DELETE", `/api/v1/device_firmwares/${winner._id}`, { token: s.token });
      assert.equal(r.status, 204, describe(r));
    }

    // One product type name (in several cases) created six times at once: one 201, five 409.
    const names = ["Race type", "race type", "RACE TYPE", " Race Type ", "race TYPE", "Race type"];
    const created = await Promise.all(
      names.map((name) => send(srv, "POST", "/api/v1/product_types", { token: s.token, json: { name } })),
    );
    created.forEach((r, i) => sane(f, `race product type ${i}`, r));
    f.check("race product types", () => {
      assert.deepEqual(created.map((r) => r.status).sort(), [201, 409, 409, 409, 409, 409]);
    });
    const pt = created.find((r) => r.status === 201)?.json as { _id: string } | undefined;
    if (pt) {
      const r = await send(srv, "DELETE", `/api/v1/product_types/${pt._id}`, { token: s.token });
      assert.equal(r.status, 204, describe(r));
    }

    // A module removed while a device enables it: whatever the order, the device never keeps a missing module.
    const ptBase = jsonRoute(s, routes.patchProductType).base;
    for (let round = 0; round < 5; round++) {
      const body = await ptBase() as { modules: Json[] } & Record<string, Json>;
      const added = await send(srv, "PATCH", `/api/v1/product_types/${s.ptId}`, {
        token: s.token,
        json: { ...body, modules: [...body.modules, { name: `Temp ${round}`, isDefault: false, treatmentIds: [] }] },
      });
      assert.equal(added.status, 200, describe(added));
      const temp = (added.json as { modules: { _id: string; name: string }[] }).modules.find((m) =>
        m.name === `Temp ${round}`
      )!._id;
      const [device, removed] = await Promise.all([
        send(srv, "PATCH", "/api/v1/devices/dev-004", {
          token: s.token,
          json: { deviceId: "dev-004", productTypeId: s.ptId, moduleIds: [temp] },
        }),
        send(srv, "PATCH", `/api/v1/product_types/${s.ptId}`, { token: s.token, json: body }),
      ]);
      sane(f, `round ${round} device patch`, device);
      sane(f, `round ${round} module removal`, removed);
      const now = (await send(srv, "GET", "/api/v1/devices/dev-004", { token: s.token })).json as {
        moduleIds: string[];
      };
      f.check(`round ${round}`, () => assert.ok(!now.moduleIds.includes(temp), "the device kept a deleted module"));
    }
    await send(srv, "PATCH", "/api/v1/devices/dev-004", {
      token: s.token,
      json: { deviceId: "dev-004", productTypeId: null },
    });

    // Uploads aborted by the client mid-body leave nothing behind.
    for (const u of uploadRoutes(s)) {
      const { path, field } = u;
      const name = `aborted${u.extension}`;
      const head = new Uint8Array(u.magic);
      const controller = new AbortController();
      const te = new TextEncoder();
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(te.encode(
            `--ab\r\nContent-Disposition: form-data; name="${field}"; filename="${name}"\r\n\r\n`,
          ));
          c.enqueue(head);
        },
        async pull(c) {
          if (sent >= 256 * 1024) return await new Promise(() => {}); // stall: the client aborts
          c.enqueue(new Uint8Array(64 * 1024).fill(1));
          sent += 64 * 1024;
        },
      });
      // A declared length the body never reaches: the server is mid-body when the client aborts.
      const pending = fixedLengthFetch(`${srv.url}${path}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${s.token}`,
          "content-type": "multipart/form-data; boundary=ab",
          "content-length": String(1 << 20),
        },
        body,
        signal: controller.signal,
      }).then((r) => r.body?.cancel(), () => {});
      await new Promise((r) => setTimeout(r, 500));
      controller.abort();
      await pending;
      let tmp: string[] = [];
      for (let i = 0; i < 50; i++) {
        tmp = await listFiles(`${srv.dataDir}/tmp`);
        if (tmp.length === 0) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      f.check(
        `aborted upload to ${path}`,
        () => assert.deepEqual(tmp, [], "a temp file outlived the aborted upload"),
      );
    }

    // Apart from the device's moduleIds churn (set back above), nothing the races did remains.
    const after = await snapshot(s);
    f.check("after the races", () => {
      assert.deepEqual(after.lists["/api/v1/device_firmwares"], before.lists["/api/v1/device_firmwares"]);
      assert.deepEqual(after.lists["/api/v1/treatments"], before.lists["/api/v1/treatments"]);
      assert.deepEqual(after.files, before.files);
      assert.deepEqual(after.tmp, []);
    });
    f.done();
  });

  await t.step("the server logged no internal error", () => assertNoInternalErrors(srv));
});
