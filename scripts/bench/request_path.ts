/**
 * The fixed per-request work over a socket, as ratios in one run: GET devices (middle page of 100,000, cache warm)
 * and an API 404, each against a bare Hono route on the same Deno (the same page bytes; Hono's own 404), with the
 * connection front (CONNECTION_GUARD=1, the default) and without it (0), on SQLite and PostgreSQL.
 *   deno run -A scripts/bench/request_path.ts [seconds=3] [sqlite|postgres|both]
 */
import { ApiClient } from "../../shared/client.ts";
import { startPostgres } from "../../testing/postgres.ts";
import { ADMIN, seededEnv } from "./steps.ts";
import { load, type LoadResult, spawnServer } from "./util.ts";

const seconds = Number(Deno.args[0] ?? 3);
const engines = (Deno.args[1] ?? "both") === "both" ? ["sqlite", "postgres"] : [Deno.args[1]];
const N = 100_000;
const connections = 10;
const path = `/api/v1/devices?page=${Math.floor((Math.ceil(N / 25) - 1) / 2)}&rowsPerPage=25`;
const missing = "/api/v1/no-such-route";

const rps = async (url: string, headers: Record<string, string> = {}, status = 200): Promise<number> => {
  await load(url, 1, connections, headers); // warm-up
  const r: LoadResult = await load(url, seconds, connections, headers);
  if (r.errors || (status === 200 && r.non2xx)) throw new Error(`${url}: ${JSON.stringify(r)}`);
  return r.rps;
};

async function bare(body: string) {
  const file = await Deno.makeTempFile({ suffix: ".json" });
  await Deno.writeTextFile(file, body);
  const srv = await spawnServer("scripts/bench/bare_server.ts", { BODY_FILE: file });
  try {
    return { page: await rps(`${srv.url}${path}`), notFound: await rps(`${srv.url}${missing}`, {}, 404) };
  } finally {
    await srv.stop();
    await Deno.remove(file);
  }
}

async function server(env: Record<string, string>) {
  const srv = await spawnServer("server/main.ts", env);
  try {
    const { token } = await new ApiClient({ baseUrl: srv.url }).login(ADMIN.email, ADMIN.password);
    const auth = { Authorization: `Bearer ${token}` };
    const body = await (await fetch(`${srv.url}${path}`, { headers: auth })).text();
    return { body, page: await rps(`${srv.url}${path}`, auth), notFound: await rps(`${srv.url}${missing}`, {}, 404) };
  } finally {
    await srv.stop();
  }
}

const tmp = await Deno.makeTempDir({ prefix: "request-path-bench-" });
try {
  for (const engine of engines) {
    const dataDir = `${tmp}/${engine}`;
    await Deno.mkdir(dataDir);
    await using pg = engine === "postgres" ? await startPostgres() : undefined;
    const env = await seededEnv(dataDir, pg, N);
    const guarded = await server(env);
    const direct = await server({ ...env, CONNECTION_GUARD: "0" });
    const base = await bare(guarded.body);
    const r = (a: number, b: number) => `${a.toFixed(0)} / ${b.toFixed(0)} = ${(a / b).toFixed(2)}`;
    console.log(`${engine} (load ${Deno.loadavg()[0].toFixed(1)}), req/s vs bare Hono:`);
    console.log(`  GET devices, guard on:   ${r(guarded.page, base.page)}`);
    console.log(`  GET devices, guard off:  ${r(direct.page, base.page)}`);
    console.log(`  404, guard on:           ${r(guarded.notFound, base.notFound)}`);
    console.log(`  404, guard off:          ${r(direct.notFound, base.notFound)}`);
    console.log(
      `  the guard itself (on / off): page ${(guarded.page / direct.page).toFixed(2)}, 404 ${
        (guarded.notFound / direct.notFound).toFixed(2)
      }`,
    );
  }
} finally {
  await Deno.remove(tmp, { recursive: true });
}
