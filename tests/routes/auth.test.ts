import assert from "node:assert/strict";
import { hashPassword } from "../../server/auth/password.ts";
import { ADMIN, refusal, testApp } from "./app.ts";

Deno.test("a password changed by another process ends the old token at the next request", async () => {
  await using app = await testApp();
  const token = await app.login();
  assert.equal((await app.request("/api/v1/devices", { token })).status, 200);

  const other = await app.another();
  assert.equal(await other.operators.setPassword(ADMIN.email, await hashPassword("a-new-password-1")), true);

  assert.deepEqual(await refusal(await app.request("/api/v1/devices", { token })), {
    status: 401,
    error: "unauthorized",
    msg: "The token is no longer valid; sign in again.",
  });
  const res = await app.request("/api/v1/login", {
    method: "POST",
    json: { email: ADMIN.email, password: "a-new-password-1" },
  });
  const fresh = (await res.json()).token;
  assert.equal((await app.request("/api/v1/devices", { token: fresh })).status, 200);
});
