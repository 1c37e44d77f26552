import assert from "node:assert/strict";
import type { ImportResult, Treatment } from "../../shared/schemas/mod.ts";
import { type ImportTreatment, makeImportDb } from "../../testing/import_db.ts";
import { startServer } from "../../testing/server.ts";
import { cliJson, runCli, show } from "./run_cli.ts";

const channel = { current: 10, frequency: 50, polarity: "+", riseTime: 100, holdTime: 200, fallTime: 100 };

function treatment(name: string, channels = 1, duration = 60): ImportTreatment {
  return { name, category: "pain", use: "daily", phases: [{ duration, channels: Array(channels).fill(channel) }] };
}

Deno.test("CLI treatments import and list", async (t) => {
  await using srv = await startServer();
  const api = await srv.login();
  const env = { CONSOLE_URL: srv.url, CONSOLE_TOKEN: api.token };
  const dir = await Deno.makeTempDir({ prefix: "cli-treatments-" });

  await t.step("treatments list on an empty console", async () => {
    assert.deepEqual(await cliJson(["treatments", "list"], { env }), []);
    const r = await runCli(["treatments", "list"], { env });
    assert.equal(r.code, 0, show(r));
    assert.equal(r.stdout, "No treatments present.\n");
  });

  await t.step("import --json prints the server's counts", async () => {
    const file = `${dir}/first.sqlite3`;
    makeImportDb(file, [treatment("Back pain", 2), treatment("Knee"), treatment("Arm relax", 4)]);
    const result = await cliJson<ImportResult>(["treatments", "import", file], { env });
    assert.deepEqual(result, { imported: 3, created: 3, updated: 0 });
  });

  await t.step("a second import prints created and updated counts", async () => {
    const file = `${dir}/second.SQLITE3`;
    makeImportDb(file, [treatment("Back pain", 3), treatment("Knee"), treatment("Neck")]);
    const r = await runCli(["treatments", "import", file], { env });
    assert.equal(r.code, 0, show(r));
    assert.equal(r.stdout, "Imported 3 treatments: 1 created, 2 updated.\n");
    // not on a terminal: progress lines for a log, the last once the server has answered
    assert.match(r.stderr, /^Importing second\.SQLITE3: started \(.+\)\n(.*\n)*Importing second\.SQLITE3: done, /);
  });

  await t.step("treatments list --json is the server's list; the table shows channels and phases", async () => {
    const list = await cliJson<Treatment[]>(["treatments", "list"], { env });
    assert.deepEqual(list.map((x) => x.name), ["Arm relax", "Back pain", "Knee", "Neck"]);
    assert.deepEqual(list, await api.listTreatments());
    const r = await runCli(["treatments", "list"], { env });
    assert.equal(r.code, 0, show(r));
    const lines = r.stdout.trim().split("\n");
    assert.match(lines[0], /^NAME\s+CHANNELS\s+PHASES\s+IMAGES\s+CATEGORY\s+UPDATED\s+ID$/);
    assert.match(lines.find((l) => l.startsWith("Back pain"))!, /^Back pain\s+3\s+1\s+0\s+pain\s/);
    assert.equal(lines.at(-1), "4 treatments.");
  });

  await t.step("an import the server refuses: exit 1 with its msg, nothing changed", async () => {
    const before = await api.listTreatments();
    const file = `${dir}/bad.sqlite3`;
    makeImportDb(file, [treatment("Knee", 1, 5), treatment("Bad", 1, -1)]);
    const r = await runCli(["treatments", "import", file], { env });
    assert.equal(r.code, 1, show(r));
    assert.match(r.stderr, /^error: .*phases/m);
    assert.equal(r.stdout, "");
    assert.deepEqual(await api.listTreatments(), before);
  });

  await t.step("wrong extension, not SQLite, missing file: exit 2, nothing sent", async () => {
    const wrongName = `${dir}/t.db`;
    makeImportDb(wrongName, [treatment("Other")]);
    const notSqlite = `${dir}/text.sqlite3`;
    await Deno.writeTextFile(notSqlite, "name,category\nKnee,pain\n");
    const cases: [string, RegExp][] = [
      [wrongName, /must end in \.sqlite3/],
      [notSqlite, /not an SQLite database/],
      [`${dir}/missing.sqlite3`, /no such file/],
    ];
    for (const [file, message] of cases) {
      const r = await runCli(["treatments", "import", file], { env });
      assert.equal(r.code, 2, show(r));
      assert.match(r.stderr, message);
    }
    assert.equal((await api.listTreatments()).length, 4);
  });

  await Deno.remove(dir, { recursive: true });
});
