import { readImportFile } from "./server/import/read_import_file.ts";
import { applyImport } from "./server/db/treatments.ts";
import { openDatabase } from "./server/db/mod.ts";
Deno.copyFileSync("/tmp/tx/big.sqlite3", "/tmp/tx/copy.sqlite3");
const db = openDatabase("/tmp/tx/main.sqlite3");
for (let i = 0; i < 3; i++) {
let t0 = performance.now();
const ts = readImportFile("/tmp/tx/copy.sqlite3");
console.log("read", (performance.now() - t0).toFixed(0));
t0 = performance.now();
console.log(applyImport(db, ts), "apply", (performance.now() - t0).toFixed(0));
}
