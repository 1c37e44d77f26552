/**
 * Names are text a person can read: product type and module names, firmware file names and imported treatment names
 * and categories refuse controls (C0, DEL, C1), line and paragraph separators, bidirectional overrides and isolates,
 * and names made only of invisible characters. Over HTTP, each class of character on each kind of name.
 */
import assert from "node:assert/strict";
import type { ProductType } from "../../shared/schemas/mod.ts";
import { isCleanText, TEXT_RULE_MSG } from "../../shared/text_rule.ts";
import { fileSource, makeXzFile } from "../../testing/files.ts";
import { makeNamedImportFile, runSql } from "../../testing/import_db.ts";
import { listFiles, startServer, type TestServer } from "../../testing/server.ts";
import { multipart } from "../helpers/hostile.ts";

/** [what, a name holding it, the phrase that must follow the field in the message]. */
const REFUSED: [string, string, string][] = [
  ["NUL", "bad\u0000name", "must not contain control characters"],
  ["C0 U+0001", "a\u0001b", "must not contain control characters"],
  ["tab", "a\tb", "must not contain control characters"],
  ["line feed", "a\nb", "must not contain control characters"],
  ["escape", "a\u001b[31mred", "must not contain control characters"],
  ["DEL", "a\u007fb", "must not contain control characters"],
  ["C1 U+0080", "a\u0080b", "must not contain control characters"],
  ["NEL U+0085", "a\u0085b", "must not contain control characters"],
  ["C1 U+009F", "a\u009fb", "must not contain control characters"],
  ["line separator", "a\u2028b", "must not contain line or paragraph separators"],
  ["paragraph separator", "a\u2029b", "must not contain line or paragraph separators"],
  ...["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"].map((
    c,
  ): [string, string, string] => [
    `bidi U+${c.codePointAt(0)!.toString(16).toUpperCase()}`,
    `abc${c}gpj.exe`,
    "must not contain bidirectional overrides or isolates",
  ]),
  ["zero-width space only", "\u200b", "must not be made only of invisible characters"],
  ["ZWNJ and ZWJ only", "\u200c\u200d", "must not be made only of invisible characters"],
  ["word joiner only", "\u2060\u2060", "must not be made only of invisible characters"],
  ["BOM between zero-width spaces", "\u200b\ufeff\u200b", "must not be made only of invisible characters"],
  ["soft hyphen only", "\u00ad", "must not be made only of invisible characters"],
  ["direction marks only", "\u200e\u200f\u061c", "must not be made only of invisible characters"],
  ["Hangul filler only", "\u3164", "must not be made only of invisible characters"],
  ["blank braille only", "\u2800\u2800", "must not be made only of invisible characters"],
  ["zero-width space between blanks", " \u200b ", "must not be made only of invisible characters"],
];

/**
 * The samples a JSON body carries, each with the phrase it is refused with: a NUL or a lone surrogate meets the text
 * rule at the edge (docs/REQUIREMENTS.md §17) before the name's own rules, which still name the field the same way.
 */
const REFUSED_IN_JSON: [string, string, string][] = [
  ...REFUSED.map(([what, name, phrase]): [string, string, string] => [
    what,
    name,
    isCleanText(name) ? phrase : TEXT_RULE_MSG,
  ]),
  ["lone high surrogate", "a\ud800b", TEXT_RULE_MSG],
  ["lone low surrogate", "\udfffname", TEXT_RULE_MSG],
];

/** Readable names with invisible or unusual characters inside: accepted as they are. */
const ACCEPTED = ["Knee\u200dpain", "\u05e9\u05dc\u05d5\u05dd\u200f 2", "Émile – Ölçü 日本", "soft\u00adhyphen"];

async function json(srv: TestServer, token: string, method: string, path: string, body: unknown) {
  const res = await srv.fetch(`/api/v1${path}`, {
    method,
    token,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

Deno.test("names: product type and module names refuse unreadable text", async (t) => {
  await using srv = await startServer();
  const api = await srv.login();
  const base = await api.createProductType("Base");

  await t.step("POST product_types: 400 naming the field, nothing created", async () => {
    for (const [what, name, phrase] of REFUSED_IN_JSON) {
      const res = await json(srv, api.token, "POST", "/product_types", { name });
      assert.equal(res.status, 400, what);
      assert.deepEqual(res.body, { error: "invalid_request", msg: `name: ${phrase}.` }, what);
    }
    assert.deepEqual((await api.listProductTypes()).map((p) => p.name), ["Base"]);
  });

  await t.step("PATCH product_types: the product type's name and each module's name", async () => {
    for (const [what, name, phrase] of REFUSED_IN_JSON) {
      const renamed = await json(srv, api.token, "PATCH", `/product_types/${base._id}`, {
        _id: base._id,
        name,
        modules: [],
      });
      assert.equal(renamed.status, 400, what);
      assert.deepEqual(renamed.body, { error: "invalid_request", msg: `name: ${phrase}.` }, what);
      const module = await json(srv, api.token, "PATCH", `/product_types/${base._id}`, {
        _id: base._id,
        name: "Base",
        modules: [{ name: "Fine", isDefault: true, treatmentIds: [] }, { name, isDefault: false, treatmentIds: [] }],
      });
      assert.equal(module.status, 400, what);
      assert.deepEqual(module.body, { error: "invalid_request", msg: `modules.1.name: ${phrase}.` }, what);
    }
    assert.deepEqual(await api.getProductType(base._id), base);
  });

  await t.step("readable names with invisible characters inside are kept as sent", async () => {
    for (const name of ACCEPTED) {
      const created = await json(srv, api.token, "POST", "/product_types", { name });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal((created.body as ProductType).name, name);
      const patched = await json(srv, api.token, "PATCH", `/product_types/${created.body._id}`, {
        _id: created.body._id,
        name,
        modules: [{ name, isDefault: false, treatmentIds: [] }],
      });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      assert.equal((patched.body as ProductType).modules[0].name, name);
    }
  });
});

Deno.test("names: firmware and import file names (the multipart filename) refuse unreadable text", async (t) => {
  await using srv = await startServer();
  const api = await srv.login();
  const B = "----names-boundary";
  const upload = async (path: string, filename: string, data: Uint8Array) => {
    const res = await srv.fetch(`/api/v1${path}`, {
      method: "POST",
      token: api.token,
      headers: { "content-type": `multipart/form-data; boundary=${B}` },
      body: multipart(B, [{ name: "file", filename, data }]),
    });
    return { status: res.status, body: await res.json() };
  };
  const dir = await Deno.makeTempDir({ prefix: "names-test-" });
  try {
    const xz = await Deno.readFile(await makeXzFile(dir, "fw.xz", "firmware bytes"));
    const sqlite = await Deno.readFile(makeNamedImportFile(`${dir}/t.sqlite3`, ["One"]));

    await t.step("firmware uploads: 400 naming the field file, nothing stored", async () => {
      for (const [what, name, phrase] of REFUSED) {
        if (name.includes("\u0000") || name.includes("\n")) continue; // next step
        // A name of invisible characters only is refused whole; with ".xz" appended it has visible characters.
        const filename = phrase.includes("invisible") ? name : `${name}.xz`;
        const res = await upload("/device_firmwares", filename, xz);
        assert.equal(res.status, 400, `${what}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.error, "invalid_request", what);
        // busboy refuses C0 controls in a header line before the name reaches the server's check
        if (![...name].some((c) => c < " " || c === "\u007f")) {
          assert.match(res.body.msg, /^file: /, `${what}: ${res.body.msg}`);
        }
      }
      assert.deepEqual(await api.listFirmwares(), []);
      assert.deepEqual(await srv.storedFirmwares(), []);
      assert.deepEqual(await listFiles(`${srv.dataDir}/tmp`), []);
    });

    await t.step("a NUL or a line feed in the multipart filename is refused too", async () => {
      for (const filename of ["bad\u0000name.xz", "bad\nname.xz"]) {
        const res = await upload("/device_firmwares", filename, xz);
        assert.ok(res.status === 400, `${JSON.stringify(filename)}: ${res.status} ${JSON.stringify(res.body)}`);
      }
      assert.deepEqual(await api.listFirmwares(), []);
    });

    await t.step("treatment import file names: 400 naming the field file", async () => {
      for (const [what, name] of REFUSED.filter(([, n]) => /[\u0085\u2028\u202e]/.test(n))) {
        const res = await upload("/treatments/import", `${name}.sqlite3`, sqlite);
        assert.equal(res.status, 400, `${what}: ${JSON.stringify(res.body)}`);
        assert.match(res.body.msg, /^file: /, `${what}: ${res.body.msg}`);
      }
      assert.deepEqual(await api.listTreatments(), []);
    });

    await t.step("readable file names are stored as sent", async () => {
      const fw = await upload("/device_firmwares", "Knee\u200dpain \u05e9\u05dc\u05d5\u05dd\u200f.xz", xz);
      assert.equal(fw.status, 201, JSON.stringify(fw.body));
      assert.equal(fw.body.name, "Knee\u200dpain \u05e9\u05dc\u05d5\u05dd\u200f.xz");
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("names: an import row whose treatment name or category is unreadable is refused, naming the row", async (t) => {
  await using srv = await startServer();
  const api = await srv.login();
  const dir = await Deno.makeTempDir({ prefix: "names-import-" });
  const importFile = async (path: string) => {
    const form = new FormData();
    form.append("file", new Blob([await Deno.readFile(path)]), "names.sqlite3");
    const res = await srv.fetch("/api/v1/treatments/import", { method: "POST", token: api.token, body: form });
    return { status: res.status, body: await res.json() };
  };
  try {
    await api.importTreatments(await fileSource(makeNamedImportFile(`${dir}/base.sqlite3`, ["Kept"])));
    const before = await api.listTreatments();

    for (const column of ["name", "category"] as const) {
      await t.step(`${column}: each class of character, 400 import_failed naming table and row`, async () => {
        for (const [what, text, phrase] of REFUSED) {
          const path = makeNamedImportFile(`${dir}/${column}.sqlite3`, ["First", "Second", "Third"]);
          // Bound through SQL: node:sqlite binds a JS string only up to its first NUL.
          runSql(
            path,
            `UPDATE treatments SET ${column} = CAST(? AS TEXT) WHERE id = 2`,
            new TextEncoder().encode(text),
          );
          const res = await importFile(path);
          assert.equal(res.status, 400, `${what}: ${JSON.stringify(res.body)}`);
          assert.deepEqual(
            res.body,
            { error: "import_failed", msg: `treatments row 2: ${column} ${phrase}.` },
            what,
          );
        }
        assert.deepEqual(await api.listTreatments(), before);
      });
    }

    await t.step("a NUL in the middle of a name is refused, not cut short (was stored as 'bad')", async () => {
      const path = makeNamedImportFile(`${dir}/nul.sqlite3`, ["First"]);
      runSql(path, "UPDATE treatments SET name = 'bad' || char(0) || 'name' WHERE id = 1");
      const res = await importFile(path);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.deepEqual(res.body, {
        error: "import_failed",
        msg: "treatments row 1: name must not contain control characters.",
      });
      assert.deepEqual(await api.listTreatments(), before);
    });

    await t.step("a NUL in the use text or a polarity is refused too (it would be cut short)", async () => {
      const use = makeNamedImportFile(`${dir}/use.sqlite3`, ["First", "Second"]);
      runSql(use, "UPDATE treatments SET use = 'twice' || char(0) || 'daily' WHERE id = 2");
      assert.deepEqual((await importFile(use)).body, {
        error: "import_failed",
        msg: "treatments row 2: use must not contain NUL characters.",
      });
      const polarity = makeNamedImportFile(`${dir}/polarity.sqlite3`, ["First", "Second"]);
      runSql(polarity, "UPDATE channels SET polarity = '+' || char(0) || '-' WHERE id = 2");
      assert.deepEqual((await importFile(polarity)).body, {
        error: "import_failed",
        msg: "channels row 2: polarity must not contain NUL characters.",
      });
      assert.deepEqual(await api.listTreatments(), before);
    });

    await t.step(
      "readable names and categories with invisible characters inside are imported as they are",
      async () => {
        const path = makeNamedImportFile(`${dir}/ok.sqlite3`, ACCEPTED);
        runSql(path, "UPDATE treatments SET category = name");
        const res = await importFile(path);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        const list = await api.listTreatments();
        for (const name of ACCEPTED) {
          const found = list.find((t) => t.name === name);
          assert.ok(found, JSON.stringify(name));
          assert.equal(found.category, name);
        }
      },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
