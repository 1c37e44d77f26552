import assert from "node:assert/strict";
import { ApiClient } from "../../shared/client.ts";
import { startServer } from "../../testing/server.ts";

/**
 * ApiClient.prefetch (the console asks for its first screen's data while the screen's code loads): the next identical
 * call takes the answer already on its way instead of asking again; a different token, another URL or a second call
 * asks the server.
 */
Deno.test("prefetch: the next identical GET takes the answer on its way, once, with the same token only", async () => {
  await using srv = await startServer();
  const admin = await srv.login();
  const requests: string[] = [];
  let token: string | null = admin.token;
  const client = new ApiClient({
    baseUrl: srv.url,
    token: () => token,
    fetch: (input, init) => {
      requests.push(`${init?.method ?? "GET"} ${new URL(String(input)).pathname}${new URL(String(input)).search}`);
      return fetch(input, init);
    },
  });

  client.prefetch((c) => {
    void c.me();
    void c.listDevices({ page: 0, rowsPerPage: 25, sort: "deviceId", order: "asc" });
  });
  assert.equal(requests.length, 2, "both asked at once");

  // The identical calls take those answers: no new request.
  assert.equal((await client.me()).email, "admin@example.com");
  assert.deepEqual((await client.listDevices({ page: 0, rowsPerPage: 25, sort: "deviceId", order: "asc" })).data, []);
  assert.equal(requests.length, 2);

  // Each answer is taken once; another query is another URL.
  await client.me();
  await client.listDevices({ page: 1, rowsPerPage: 25, sort: "deviceId", order: "asc" });
  assert.equal(requests.length, 4);

  // Asked with one token, not handed to a call with another.
  client.prefetch((c) => void c.me());
  token = null;
  await assert.rejects(client.me(), (err: Error & { status?: number }) => err.status === 401);
  assert.equal(requests.length, 6);
});
