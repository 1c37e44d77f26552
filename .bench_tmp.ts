import { benchTreatments } from "./scripts/bench/steps.ts";
import { startServer } from "./tests/helpers/server.ts";
await using srv = await startServer({ env: { LOG_LEVEL: "quiet" } });
const api = await srv.login();
const tmp = await Deno.makeTempDir();
const r = await benchTreatments(api, srv.url, api.token, srv.dataDir, tmp, 10000);
console.log(r, "import ratio", (r.importMs / r.rawInsertMs).toFixed(2), "list ratio", (r.listMs / r.serializeMs).toFixed(2));
await Deno.remove(tmp, { recursive: true });
