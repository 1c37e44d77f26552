/**
 * Every way of starting the server passes the same V8 flags (server/v8_flags.ts): the young generation's bound keeps a
 * bucket upload within its memory goal, and a launcher without it would silently lose that.
 */
import assert from "node:assert/strict";
import { SERVER_V8_FLAGS } from "../../server/v8_flags.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const read = (path: string) => Deno.readTextFileSync(`${ROOT}${path}`);
const flag = `--v8-flags=${SERVER_V8_FLAGS}`;

Deno.test("deno.json's start and demo tasks and the image's start task pass the server's V8 flags", () => {
  const root = JSON.parse(read("deno.json")).tasks;
  const image = JSON.parse(read("deploy/image/deno.json")).tasks;
  for (
    const [where, task] of [["deno.json start", root.start], ["deno.json demo", root.demo], [
      "deploy/image/deno.json start",
      image.start,
    ]]
  ) {
    assert.match(task, /server\/main\.ts/, where);
    assert.ok(task.split(/\s+/).includes(flag), `${where} must pass ${flag}: ${task}`);
  }
});

Deno.test("the Dockerfile's CMD passes the server's V8 flags", () => {
  const cmd = /^CMD\s+(\[.*\])\s*$/m.exec(read("Dockerfile"));
  assert.ok(cmd, "the Dockerfile has a CMD in exec form");
  const args: string[] = JSON.parse(cmd[1]);
  assert.ok(args.includes("server/main.ts"), cmd[1]);
  assert.ok(args.includes(flag), `the CMD must pass ${flag}: ${cmd[1]}`);
});

Deno.test("the test servers and the bench start the server with its V8 flags", () => {
  for (const path of ["testing/server.ts", "scripts/bench/util.ts"]) {
    assert.match(read(path), /SERVER_V8_FLAGS/, `${path} must start the server with SERVER_V8_FLAGS`);
  }
});
