/**
 * The PostgreSQL figures of `deno task bench`, beside SQLite's: a throwaway cluster (testing/postgres.ts), one server
 * on it, GET devices at two fleet sizes, check-ins, the treatment import. The SQLite server is measured the same way
 * at the larger size, so both engines have both sizes.
 */
import type { ApiClient } from "../../shared/client.ts";
import { fileSource } from "../../testing/files.ts";
import { startPostgres } from "../../testing/postgres.ts";
import { seedPostgresDevices } from "../../testing/postgres_bench.ts";
import { writeImportFile } from "../../testing/sqlite_bench.ts";
import {
  benchCheckin,
  benchDevices,
  type DevicesFigures,
  seedDevices,
  serverEnv,
  withSignedInServer,
} from "./steps.ts";
import { type LoadResult, timed } from "./util.ts";

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
  const [sqliteLarge, sqliteImport] = await withSignedInServer(serverEnv(sqliteDir), async ({ api, url, token }) =>
    [
      await benchDevices(url, token, size.devicesLarge, size.seconds),
      await importAndList(api, url, token, file, size.treatments),
    ] as const);
  await Deno.remove(sqliteDir, { recursive: true });

  await using pg = await startPostgres();
  const url = await pg.createDatabase();
  const dataDir = `${tmp}/data-postgres`;
  await Deno.mkdir(dataDir);
  return await withSignedInServer({ ...serverEnv(dataDir), DATABASE_URL: url }, async ({ api, url: srvUrl, token }) => {
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
