/**
 * Audit of the treatment import with hostile SQLite files (views, triggers, bad values, dangling references,
 * untrusted images, a truncated database): 400 import_failed naming the table, nothing imported.
 */
import { generateTreatments, IMPORT_SCHEMA, makeImportDb, runSql } from "../../testing/import_db.ts";
import { multipart } from "../helpers/hostile.ts";
import { assertNoInternalErrors, Findings, refused, send, snapshot, startAudit, unchanged } from "./setup.ts";

Deno.test("audit: treatment import", async (t) => {
  await using s = await startAudit();
  const { srv } = s;

  await t.step("hostile import files: 400 import_failed naming the table, nothing imported", async () => {
    const f = new Findings();
    const valid = `
        INSERT INTO treatments VALUES (1, 'Hostile import', 'c', 'u');
        INSERT INTO phases VALUES (1, 1, 0, 10);
        INSERT INTO channels VALUES (1, 1, 0, 1, 2, '+', 1, 1, 1);`;
    const cases: [string, string, string | null][] = [
      [
        "a view named treatments",
        `${IMPORT_SCHEMA.replace(/CREATE TABLE treatments[^;]*;/, "")}
          CREATE TABLE t0 (id INTEGER PRIMARY KEY, name TEXT NOT NULL, category TEXT, use TEXT);
          CREATE VIEW treatments AS SELECT * FROM t0;
          INSERT INTO t0 VALUES (1, 'From a view', NULL, NULL);`,
        "treatments",
      ],
      [
        "a trigger",
        `${IMPORT_SCHEMA}${valid}
          CREATE TRIGGER tr AFTER INSERT ON treatments BEGIN DELETE FROM phases; END;`,
        "treatments",
      ],
      [
        "a NULL name",
        `${
          IMPORT_SCHEMA.replace("name TEXT NOT NULL", "name TEXT")
        }${valid} INSERT INTO treatments VALUES (2, NULL, NULL, NULL);`,
        "treatments",
      ],
      ["a blank name", `${IMPORT_SCHEMA}${valid} INSERT INTO treatments VALUES (2, '  ', NULL, NULL);`, "treatments"],
      [
        "a name twice",
        `${IMPORT_SCHEMA}${valid} INSERT INTO treatments VALUES (2, ' Hostile import ', NULL, NULL);`,
        "treatments",
      ],
      ["text as a duration", `${IMPORT_SCHEMA}${valid} INSERT INTO phases VALUES (2, 1, 1, 'abc');`, "phases"],
      ["a negative duration", `${IMPORT_SCHEMA}${valid} INSERT INTO phases VALUES (2, 1, 1, -1);`, "phases"],
      [
        "an infinite current",
        `${IMPORT_SCHEMA}${valid}
          INSERT INTO channels VALUES (2, 1, 1, 9e999, 2, '+', 1, 1, 1);`,
        "channels",
      ],
      [
        "a blob as a frequency",
        `${IMPORT_SCHEMA}${valid}
          INSERT INTO channels VALUES (2, 1, 1, 1, X'00FF', '+', 1, 1, 1);`,
        "channels",
      ],
      ["a dangling treatment_id", `${IMPORT_SCHEMA}${valid} INSERT INTO phases VALUES (2, 99, 0, 1);`, "phases"],
      [
        "a dangling phase_id",
        `${IMPORT_SCHEMA}${valid}
          INSERT INTO channels VALUES (2, 99, 0, 1, 2, '+', 1, 1, 1);`,
        "channels",
      ],
      [
        "no channels table",
        `${IMPORT_SCHEMA.replace(/CREATE TABLE channels[^;]*;/, "")}
          INSERT INTO treatments VALUES (1, 'No channels', NULL, NULL);`,
        "channels",
      ],
      [
        "an image that is HTML",
        `${IMPORT_SCHEMA}${valid}
          INSERT INTO images VALUES (1, 1, 0, 'text/html', CAST('<script>alert(1)</script>' AS BLOB));`,
        "images",
      ],
      [
        "an image whose bytes are not its type",
        `${IMPORT_SCHEMA}${valid}
          INSERT INTO images VALUES (1, 1, 0, 'image/png', CAST('<svg onload=alert(1)>' AS BLOB));`,
        "images",
      ],
      [
        "a huge integer id",
        `${IMPORT_SCHEMA}${valid} INSERT INTO phases VALUES (2, 1, 9223372036854775807, 1);`,
        "phases",
      ],
    ];
    let n = 0;
    for (const [what, sql, table] of cases) {
      const path = `${s.tmp}/hostile-${n++}.sqlite3`;
      runSql(path, sql);
      const before = await snapshot(s);
      const r = await send(srv, "POST", "/api/v1/treatments/import", {
        token: s.token,
        body: multipart("imp", [{ name: "file", filename: "hostile.sqlite3", data: await Deno.readFile(path) }]),
        contentType: "multipart/form-data; boundary=imp",
      });
      const label = `POST treatments/import [${what}]`;
      refused(f, label, r, [400], { code: "import_failed", field: table ?? undefined });
      unchanged(f, label, before, await snapshot(s));
    }
    // A truncated database: the first pages of a valid file.
    {
      const path = `${s.tmp}/truncated.sqlite3`;
      makeImportDb(path, generateTreatments(200, { phases: 3, channels: 2, namePrefix: "Truncated" }));
      const bytes = await Deno.readFile(path);
      const before = await snapshot(s);
      const r = await send(srv, "POST", "/api/v1/treatments/import", {
        token: s.token,
        body: multipart("imp", [{ name: "file", filename: "t.sqlite3", data: bytes.slice(0, 8192) }]),
        contentType: "multipart/form-data; boundary=imp",
      });
      refused(f, "POST treatments/import [truncated database]", r, [400], { code: "import_failed" });
      unchanged(f, "POST treatments/import [truncated database]", before, await snapshot(s));
    }
    f.done();
  });

  await t.step("the server logged no internal error", () => assertNoInternalErrors(srv));
});
