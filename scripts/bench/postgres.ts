/**
 * The PostgreSQL figures of `deno task bench`, beside SQLite's: a throwaway cluster (testing/postgres.ts), one server
 * on it, GET devices at two fleet sizes, check-ins, the treatment import. The SQLite server is measured the same way
 * at the larger size, so both engines have both sizes.
 */
import { ApiClient } from "../../shared/client.ts";
import { fixedLengthFetch } from "../../shared/fixed_length_fetch.ts";
import { fileSource } from "../../testing/files.ts";
import { startPostgres } from "../../testing/postgres.ts";
import { seedPostgresDevices } from "../../testing/postgres_bench.ts";
import { writeImportFile } from "../../testing/sqlite_bench.ts";
import { ADMIN, benchCheckin, benchDevices, type DevicesFigures, seedDevices, serverEnv } from "./steps.ts";
import { type LoadResult, spawnServer, timed } from "./util.ts";

export interface PostgresFigures {
  devices: DevicesFigures;
  devicesLarge: DevicesFigures;
  sqliteLarge: DevicesFigures;
  checkin: LoadResult;
  importMs: number;
  listMs: number;
  /** The same import and list on SQLite (a fresh database), for the ratio. */
  sqliteImportMs: number;
  sqliteListMs: number;
}

export async function benchPostgres(
  tmp: string,
  size: { devices: number; devicesLarge: number; treatments: number; seconds: number; checkins: number },
  say: (s: string) => void,
): Promise<PostgresFigures> {
  const file = `${tmp}/bench-import-engines.sqlite3`;
  writeImportFile(file, size.treatments, 10, 4);
  say(`P1. SQLite: GET devices at ${size.devicesLarge} devices; import ${size.treatments} treatments`);
  const sqliteDir = `${tmp}/data-sqlite-large`;
  await Deno.mkdir(sqliteDir);
  seedDevices(sqliteDir, size.devicesLarge);
  const [sqliteLarge, sqliteImport] = await withServer(serverEnv(sqliteDir), async (api, url, token) =>
    [
      await benchDevices(url, token, size.devicesLarge, size.seconds),
      await importAndList(api, url, token, file, size.treatments),
    ] as const);
  await Deno.remove(sqliteDir, { recursive: true });

  await using pg = await startPostgres();
  const url = await pg.createDatabase();
  const dataDir = `${tmp}/data-postgres`;
  await Deno.mkdir(dataDir);
  return await withServer({ ...serverEnv(dataDir), DATABASE_URL: url }, async (api, srvUrl, token) => {
    say(`P2. PostgreSQL: GET devices at ${size.devices} devices`);
    await seedPostgresDevices(url, 0, size.devices);
    const devices = await benchDevices(srvUrl, token, size.devices, size.seconds);
    say(`P3. PostgreSQL: check-in with ${size.checkins} concurrent devices`);
    const checkin = await benchCheckin(srvUrl, size.seconds, size.checkins);
    say(`P4. PostgreSQL: import ${size.treatments} treatments × 10 × 4, then GET treatments`);
    const { importMs, listMs } = await importAndList(api, srvUrl, token, file, size.treatments);
    say(`P5. PostgreSQL: GET devices at ${size.devicesLarge} devices`);
    await seedPostgresDevices(url, size.devices, size.devicesLarge);
    // With the check-ins' devices (bench-…) beside the DEV-… ones.
    const total = (await api.listDevices({ rowsPerPage: 1 })).total;
    const devicesLarge = await benchDevices(srvUrl, token, total, size.seconds);
    return {
      devices,
      devicesLarge,
      sqliteLarge,
      checkin,
      importMs,
      listMs,
      sqliteImportMs: sqliteImport.importMs,
      sqliteListMs: sqliteImport.listMs,
    };
  });
}

/** Imports the file (timed), then GET treatments five times (mean ms). */
async function importAndList(api: ApiClient, url: string, token: string, file: string, n: number) {
  const imported = await timed(async () => await api.importTreatments(await fileSource(file)));
  if (imported.value.imported !== n) throw new Error(`import reported ${imported.value.imported}, expected ${n}`);
  const get = async () =>
    (await (await fetch(`${url}/api/v1/treatments`, { headers: { Authorization: `Bearer ${token}` } }))
      .arrayBuffer()).byteLength;
  await get();
  let listMs = 0;
  for (let i = 0; i < 5; i++) listMs += (await timed(get)).ms / 5;
  return { importMs: imported.ms, listMs };
}

async function withServer<T>(
  env: Record<string, string>,
  fn: (api: ApiClient, url: string, token: string) => Promise<T>,
): Promise<T> {
  const srv = await spawnServer("server/main.ts", env);
  try {
    const { token } = await new ApiClient({ baseUrl: srv.url }).login(ADMIN.email, ADMIN.password);
    const api = new ApiClient({
      baseUrl: srv.url,
      token: () => token,
      timeoutMs: 600_000,
      uploadFetch: fixedLengthFetch,
    });
    return await fn(api, srv.url, token);
  } finally {
    await srv.stop();
  }
}
