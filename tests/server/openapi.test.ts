/**
 * GET /api/v1/openapi.json (docs/REQUIREMENTS.md §14): generated from the route table, so every route the app serves is in it
 * (tests/server/route_table.test.ts holds the app to the table), with both auth schemes and every error answer. Answers
 * the suite sees are held to it by the test harness (testing/answer_check.ts).
 */
import assert from "node:assert/strict";
import { ddiRouteList, routeList } from "../../shared/routes/mod.ts";
import { alwaysAnswered } from "../../shared/openapi.ts";
import { routeFor } from "../../testing/answer_check.ts";
import { startServer } from "../../testing/server.ts";

Deno.test("the OpenAPI document describes every route, parameter, body, answer and auth scheme", async () => {
  await using srv = await startServer();
  const res = await srv.fetch("/api/v1/openapi.json");
  assert.equal(res.status, 200);
  const doc = await res.json();
  assert.equal(doc.openapi, "3.1.0");
  assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), ["ddiToken", "deviceKey", "operatorToken"]);
  for (const r of routeList) {
    const path = `/api/v1${r.path.replace(/:(\w+)/g, "{$1}")}`;
    const op = doc.paths[path]?.[r.method.toLowerCase()];
    assert.ok(op, `${r.method} ${path} is missing`);
    assert.equal(op.operationId, r.name);
    const documented = new Set([...Object.keys(r.answers).map(Number), ...alwaysAnswered(r)]);
    assert.deepEqual(Object.keys(op.responses).map(Number).sort(), [...documented].sort());
    const security = op.security.map((s: object) => Object.keys(s)[0]);
    assert.deepEqual(
      security,
      { operator: ["operatorToken"], device: ["deviceKey"], ddi: ["ddiToken"], public: [] }[r.auth],
    );
    for (const name of r.path.match(/:(\w+)/g) ?? []) {
      assert.ok(op.parameters.some((p: { in: string; name: string }) => p.in === "path" && `:${p.name}` === name));
    }
    for (const [status, answer] of Object.entries(op.responses) as [string, { content?: object }][]) {
      if (Number(status) >= 400 && r.method !== "HEAD") { // a HEAD answer has no body
        const schema = (answer.content as Record<string, { schema: { required: string[] } }>)["application/json"]
          .schema;
        assert.deepEqual(schema.required.sort(), ["error", "msg"], `${r.name} ${status}`);
      }
    }
    if (r.body.kind !== "none") assert.ok(op.requestBody, `${r.name} has no request body`);
  }
  assert.equal(doc.paths["/api/v1/devices"].get.parameters.find((p: { name: string }) => p.name === "q").in, "query");
  // hawkBit DDI (docs/REQUIREMENTS.md §18): at the server root, tagged DDI, with its own scheme.
  for (const r of ddiRouteList) {
    const op = doc.paths[r.path.replace(/:(\w+)/g, "{$1}")]?.[r.method.toLowerCase()];
    assert.ok(op, `${r.method} ${r.path} is missing`);
    assert.deepEqual([op.operationId, op.tags, op.security], [r.name, ["DDI"], [{ ddiToken: [] }]]);
  }
});

Deno.test("the README's curl examples call routes the document describes", async () => {
  const readme = await Deno.readTextFile(new URL("../../README.md", import.meta.url));
  const section = readme.split("## Calling the API")[1].split("\n## ")[0];
  const commands = section.replace(/\\\n\s*/g, " ").split("\n").filter((l) => l.includes("$URL/api/v1/"));
  assert.ok(commands.length >= 5);
  for (const command of commands) {
    const path = /\$URL(\/api\/v1\/[^\s"?]*)/.exec(command)![1].replace(/<[^>]+>/g, "x");
    const method = /-X (\w+)/.exec(command)?.[1] ?? (/ -[dF] /.test(command) ? "POST" : "GET");
    assert.ok(routeFor(method, path), `${method} ${path} (README) is not a documented route`);
  }
});
