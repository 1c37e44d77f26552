import assert from "node:assert/strict";
import type { ProductType } from "../../shared/schemas/product_type.ts";
import { refusal, testApp } from "./app.ts";

Deno.test("product types routes on the stores: happy paths and refusals", async (t) => {
  await using app = await testApp();
  const token = await app.login();
  const call = (method: string, path: string, json?: unknown) =>
    app.request(`/api/v1/product_types${path}`, { method, token, json });

  let pt: ProductType;
  await t.step("create 201, list, get", async () => {
    const res = await call("POST", "", { name: " Home " });
    assert.equal(res.status, 201);
    pt = await res.json();
    assert.deepEqual(pt, { ...pt, name: "Home", theme: {}, modules: [] });
    assert.deepEqual(await (await call("GET", "")).json(), [pt]);
    assert.deepEqual(await (await call("GET", `/${pt._id}`)).json(), pt);
  });

  await t.step("patch replaces name, theme and modules", async () => {
    const res = await call("PATCH", `/${pt._id}`, {
      _id: pt._id,
      name: "Home 2",
      theme: { darkMode: true },
      modules: [{ name: "Base", isDefault: true, treatmentIds: [] }],
    });
    assert.equal(res.status, 200);
    const saved: ProductType = await res.json();
    assert.deepEqual([saved.name, saved.theme, saved.modules.map((m) => m.name)], ["Home 2", { darkMode: true }, [
      "Base",
    ]]);
    assert.deepEqual(await (await call("GET", `/${pt._id}`)).json(), saved);
  });

  await t.step("refusals: 400 body _id, 404 unknown, 409 name, 400 module", async () => {
    await call("POST", "", { name: "Other" });
    assert.deepEqual(await refusal(await call("PATCH", `/${pt._id}`, { _id: "x", name: "A", modules: [] })), {
      status: 400,
      error: "invalid_request",
      msg: `_id: the body's _id x differs from the path's ${pt._id}.`,
    });
    assert.deepEqual(await refusal(await call("PATCH", "/nope", { _id: "nope", name: "A", modules: [] })), {
      status: 404,
      error: "not_found",
      msg: "No product type with id nope.",
    });
    assert.deepEqual(await refusal(await call("GET", "/nope")), {
      status: 404,
      error: "not_found",
      msg: "No product type with id nope.",
    });
    assert.deepEqual(await refusal(await call("PATCH", `/${pt._id}`, { _id: pt._id, name: "OTHER", modules: [] })), {
      status: 409,
      error: "conflict",
      msg: "A product type named OTHER already exists (names ignore case).",
    });
    const res = await call("PATCH", `/${pt._id}`, {
      _id: pt._id,
      name: "Home 2",
      modules: [{ name: "x", isDefault: false, treatmentIds: ["t-missing"] }],
    });
    assert.deepEqual(await refusal(res), {
      status: 400,
      error: "invalid_request",
      msg: "modules.0.treatmentIds: no treatment with id t-missing.",
    });
  });

  await t.step("delete 204, then 404", async () => {
    assert.equal((await call("DELETE", `/${pt._id}`)).status, 204);
    assert.deepEqual(await refusal(await call("DELETE", `/${pt._id}`)), {
      status: 404,
      error: "not_found",
      msg: `No product type with id ${pt._id}.`,
    });
  });
});
