/**
 * `deno task bench --stores`: only the rows that go through the stores, on both engines, printed: GET devices (middle
 * page, search), device check-in, the treatment import and the streamed list, at `size.devices` devices. Made to compare
 * two versions of the store code in the same conditions (run one, then the other, back to back): no bare baselines, no
 * 1,000,000-device fleets.
 */
import { fileSource } from "../../testing/files.ts";
import { startPostgres } from "../../testing/postgres.ts";
import { seedPostgresDevices } from "../../testing/postgres_bench.ts";
import { writeImportFile } from "../../testing/sqlite_bench.ts";
import { benchCheckin, seedDevices, serverEnv, type SignedInServer, withSignedInServer } from "./steps.ts";
import { fixed, load, type LoadResult, timed } from "./util.ts";

export interface StoreFigures {
  engine: "SQLite" | "PostgreSQL";
  middle: LoadResult;
  search: LoadResult;
  checkin: LoadResult;
  importMs: number;
  listMs: number;
}

export async function benchStores(
  tmp: string,
  size: { devices: number; treatments: number; seconds: number; checkins: number },
  say: (s: string) => void,
): Promise<StoreFigures[]> {
  const file = `${tmp}/bench-import-stores.sqlite3`;
  writeImportFile(file, size.treatments, 10, 4);
  say(`S1. SQLite, ${size.devices} devices`);
  const sqliteDir = `${tmp}/data-sqlite-stores`;
  await Deno.mkdir(sqliteDir);
  seedDevices(sqliteDir, size.devices);
  const sqlite = await withSignedInServer(serverEnv(sqliteDir), (srv) => measure("SQLite", srv, file, size));
  await Deno.remove(sqliteDir, { recursive: true });

  say(`S2. PostgreSQL, ${size.devices} devices`);
  await using pg = await startPostgres();
  const url = await pg.createDatabase();
  const dataDir = `${tmp}/data-postgres-stores`;
  await Deno.mkdir(dataDir);
  const postgres = await withSignedInServer({ ...serverEnv(dataDir), DATABASE_URL: url }, async (srv) => {
    await seedPostgresDevices(url, 0, size.devices); // once the server has made the schema
    return await measure("PostgreSQL", srv, file, size);
  });
  return [sqlite, postgres];
}

async function measure(
  engine: StoreFigures["engine"],
  { api, url, token }: SignedInServer,
  file: string,
  size: { devices: number; treatments: number; seconds: number; checkins: number },
): Promise<StoreFigures> {
  const auth = { Authorization: `Bearer ${token}` };
  const middle = `${url}/api/v1/devices?page=${Math.floor((Math.ceil(size.devices / 25) - 1) / 2)}&rowsPerPage=25`;
  await load(middle, 1, 10, auth); // warm-up
  const devices = await load(middle, size.seconds, 10, auth);
  const search = await load(`${url}/api/v1/devices?page=0&rowsPerPage=25&q=0042`, size.seconds, 10, auth);
  const checkin = await benchCheckin(url, size.seconds, size.checkins);
  const imported = await timed(async () => await api.importTreatments(await fileSource(file)));
  if (imported.value.imported !== size.treatments) throw new Error(`import reported ${imported.value.imported}`);
  const get = async () => (await (await fetch(`${url}/api/v1/treatments`, { headers: auth })).arrayBuffer()).byteLength;
  await get();
  let listMs = 0;
  for (let i = 0; i < 5; i++) listMs += (await timed(get)).ms / 5;
  return { engine, middle: devices, search, checkin, importMs: imported.ms, listMs };
}

/** The figures as table rows. */
export function storeRows(figures: StoreFigures[]): string[] {
  return [
    "| engine | GET devices middle page: req/s, p99 | q search: req/s, p99 | check-in: req/s, p99 | import ms | list ms |",
    "|---|---|---|---|---|---|",
    ...figures.map((f) =>
      `| ${f.engine} | ${fixed(f.middle.rps, 0)}, ${f.middle.p99} ms | ${
        fixed(f.search.rps, 0)
      }, ${f.search.p99} ms | ${fixed(f.checkin.rps, 0)}, ${f.checkin.p99} ms | ${fixed(f.importMs, 0)} | ${
        fixed(f.listMs, 1)
      } |`
    ),
  ];
}

/** Whether any load step had a failed request. */
export const storeFailures = (figures: StoreFigures[]) =>
  figures.reduce((n, f) => n + [f.middle, f.search, f.checkin].reduce((m, r) => m + r.non2xx + r.errors, 0), 0);
