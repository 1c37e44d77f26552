import { readImportFile } from "./server/import/read_import_file.ts";
import { applyImport } from "./server/db/treatments.ts";
import { openDatabase } from "./server/db/mod.ts";
Deno.copyFileSync("/tmp/tx/big.sqlite3", "/tmp/tx/copy.sqlite3");
const db = openDatabase("/tmp/tx/main.sqlite3");
for (let i = 0; i < 4; i++) {
let t0 = performance.now();
const ts = readImportFile("/tmp/tx/copy.sqlite3");
const r = (performance.now() - t0).toFixed(0);
t0 = performance.now();
applyImport(db, ts); console.log("read", r, "apply", (performance.now() - t0).toFixed(0));
}
