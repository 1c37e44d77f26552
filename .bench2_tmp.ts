import { benchTreatments } from "./scripts/bench/steps.ts";
import { startServer } from "./tests/helpers/server.ts";
await using srv = await startServer({ env: { LOG_LEVEL: "quiet" } });
const api = await srv.login();

for (let i = 0; i < 3; i++) { const tmp = await Deno.makeTempDir();
const r = await benchTreatments(api, srv.url, api.token, srv.dataDir, tmp, 10000);
console.log("import", r.importMs.toFixed(0), "raw", r.rawInsertMs.toFixed(0), "ratio", (r.importMs / r.rawInsertMs).toFixed(2));
}
console.log(srv.output().split("\n").filter((l) => l.includes("TIMING")).join("\n"));

