/**
 * The API client's `reauthorize` (the console's sign-in dialog over the page): a call answered 401 because the session
 * ended waits for it and is sent again with the new token; the sign-in itself never waits; declining keeps the 401.
 * In process, on the real app (tests/routes/app.ts).
 */
import assert from "node:assert/strict";
import { ApiClient, ApiError } from "../../shared/client.ts";
import { hashPassword } from "../../server/auth/password.ts";
import { ADMIN, testApp } from "../routes/app.ts";

Deno.test("a change refused by an ended session is sent again after signing in; the sign-in never waits", async () => {
  await using app = await testApp();
  let token: string | null = await app.login();
  const asked: string[] = [];
  let answer: () => Promise<boolean> = () => Promise.resolve(false);
  const client = new ApiClient({
    baseUrl: "http://console.test",
    token: () => token,
    fetch: (input, init) => Promise.resolve(app.app.request(String(input), init)),
    reauthorize: (sent) => {
      asked.push(sent);
      return answer();
    },
  });
  const before = token;

  // The password changes elsewhere: the session has ended.
  assert.equal(await app.stores.operators.setPassword(ADMIN.email, await hashPassword("a-new-password-1")), true);
  answer = async () => {
    token = (await new ApiClient({
      baseUrl: "http://console.test",
      fetch: (input, init) => Promise.resolve(app.app.request(String(input), init)),
    }).login(ADMIN.email, "a-new-password-1")).token;
    return true;
  };
  const made = await client.createProductType("Walker");
  assert.deepEqual(asked, [before], "asked once, with the token the call was sent with");
  assert.equal(made.name, "Walker");
  assert.equal((await client.listProductTypes()).length, 1, "saved once");

  // A wrong password at sign-in is a 401 of its own: it never waits for a sign-in.
  await assert.rejects(client.login(ADMIN.email, "wrong-password-1"), (e) => e instanceof ApiError && e.status === 401);
  assert.equal(asked.length, 1);

  // Declined (signed out instead): the call ends with its 401 and the server's reason; nothing is saved.
  assert.equal(await app.stores.operators.setPassword(ADMIN.email, await hashPassword("a-new-password-2")), true);
  answer = () => Promise.resolve(false);
  await assert.rejects(
    client.createProductType("Runner"),
    (e) => e instanceof ApiError && e.status === 401 && /no longer valid/.test(e.msg),
  );
  assert.equal(asked.length, 2);
  const admin = (await app.stores.productTypes.list()).map((p) => p.name);
  assert.deepEqual(admin, ["Walker"]);
});
