import assert from "node:assert/strict";
import { ConflictError, InvalidError, NotFoundError, StoreError } from "../../server/db/errors.ts";
import { fromStoreError } from "../../server/errors.ts";
import { refusal, testApp } from "./app.ts";

Deno.test("a store's domain error is answered once with its status and {error, msg}", async (t) => {
  await using app = await testApp();
  const token = await app.login();

  await t.step("NotFoundError → 404 not_found", async () => {
    assert.deepEqual(await refusal(await app.request("/api/v1/devices/ghost", { method: "DELETE", token })), {
      status: 404,
      error: "not_found",
      msg: "No device with deviceId ghost.",
    });
  });

  await t.step("InvalidError → 400 invalid_request", async () => {
    const types = await (await app.request("/api/v1/device_types", { token })).json();
    const res = await app.request(`/api/v1/device_types/${types[0]._id}`, {
      method: "PATCH",
      token,
      json: { _id: types[0]._id, defaultFirmware: "fw-x" },
    });
    assert.deepEqual(await refusal(res), {
      status: 400,
      error: "invalid_request",
      msg: "defaultFirmware: no firmware with id fw-x.",
    });
  });

  await t.step("ConflictError → 409 conflict", async () => {
    await app.request("/api/v1/product_types", { method: "POST", token, json: { name: "Taken" } });
    const res = await app.request("/api/v1/product_types", { method: "POST", token, json: { name: "taken" } });
    assert.deepEqual(await refusal(res), {
      status: 409,
      error: "conflict",
      msg: "A product type named taken already exists (names ignore case).",
    });
  });

  await t.step("the mapping itself", () => {
    for (
      const [err, status, code] of [
        [new NotFoundError("a"), 404, "not_found"],
        [new ConflictError("b"), 409, "conflict"],
        [new InvalidError("c"), 400, "invalid_request"],
      ] as const
    ) {
      const answer = fromStoreError(err)!;
      assert.deepEqual([answer.status, answer.code, answer.message], [status, code, err.message]);
    }
    assert.equal(fromStoreError(new StoreError("no kind")), null);
    assert.equal(fromStoreError(new Error("plain")), null);
  });
});

Deno.test("any other error from a store is a logged 500 that reveals nothing", async () => {
  await using app = await testApp((ctx) => ({
    ...ctx,
    stores: {
      ...ctx.stores,
      devices: {
        ...ctx.stores.devices,
        get: () => Promise.reject(new Error("disk on fire")),
        remove: () => Promise.reject(new StoreError("a kind with no answer")),
      },
    },
  }));
  const token = await app.login();
  for (const method of ["GET", "DELETE"]) {
    assert.deepEqual(await refusal(await app.request("/api/v1/devices/dev", { method, token })), {
      status: 500,
      error: "internal",
      msg: "Something went wrong on the server; the request changed nothing.",
    });
  }
  assert.ok(app.logged.some((line) => line.includes("disk on fire")));
});
