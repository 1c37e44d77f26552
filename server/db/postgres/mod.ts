/**
 * The PostgreSQL engine (DATABASE_URL): a pool of `poolSize` connections per process, any number of processes on one
 * database. See open.ts for the concurrency model.
 */
import { keepKeys } from "./firmware_keys.ts";
import type { OpenStores } from "../stores.ts";
import { postgresAudit } from "./audit.ts";
import { postgresApiTokens } from "./api_tokens.ts";
import { postgresDemo } from "./demo.ts";
import { postgresDeviceApi } from "./device_api.ts";
import { postgresDeviceTypes } from "./device_types.ts";
import { postgresDevices } from "./devices.ts";
import { postgresFirmwares } from "./firmwares.ts";
import { postgresLoginAttempts } from "./login_attempts.ts";
import { connect, exclusive, guarded, isUnavailable, migrate, type PostgresOptions, unavailable } from "./open.ts";
import { postgresOperators } from "./operators.ts";
import { postgresProductTypes } from "./product_types.ts";
import { postgresRollouts } from "./rollouts.ts";
import { postgresSavedViews } from "./saved_views.ts";
import { postgresTreatments } from "./treatments.ts";

/** How long a health check waits for the database's answer. */
const PING_TIMEOUT_MS = 1500;

/** The list's chunks, with "cannot reach the database" as StoreUnavailableError (before the first chunk: a 503). */
async function* guardedChunks<T>(chunks: AsyncIterable<T>): AsyncGenerator<T> {
  try {
    yield* chunks;
  } catch (err) {
    throw isUnavailable(err) ? unavailable(err) : err;
  }
}

/** Connects and migrates (under an advisory lock); NewerSchemaError leaves a newer database untouched. */
export async function openPostgresStores(options: PostgresOptions): Promise<OpenStores> {
  const sql = connect(options);
  try {
    await migrate(sql);
  } catch (err) {
    await sql.end({ timeout: 1 }).catch(() => {});
    throw isUnavailable(err) ? unavailable(err) : err;
  }
  // Long streamed reads (the treatment list, read as slowly as the client takes it) hold a connection each for their
  // whole length: they get a pool of their own, so that they can never take every connection from the requests.
  const streams = connect({ ...options, poolSize: Math.max(2, Math.ceil(options.poolSize / 2)) });
  const treatments = postgresTreatments(sql, streams);
  const keeper = keepKeys(sql);
  return {
    devices: guarded(postgresDevices(sql)),
    productTypes: guarded(postgresProductTypes(sql)),
    deviceTypes: guarded(postgresDeviceTypes(sql)),
    firmwares: guarded(postgresFirmwares(sql)),
    treatments: { ...guarded(treatments), listJsonChunks: () => guardedChunks(treatments.listJsonChunks()) },
    operators: guarded(postgresOperators(sql)),
    deviceApi: guarded(postgresDeviceApi(sql)),
    demo: guarded(postgresDemo(sql)),
    apiTokens: guarded(postgresApiTokens(sql)),
    loginAttempts: guarded(postgresLoginAttempts(sql)),
    rollouts: guarded(postgresRollouts(sql)),
    savedViews: guarded(postgresSavedViews(sql)),
    audit: guarded(postgresAudit(sql)),
    system: guarded({
      ping: async () => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        try {
          await Promise.race([
            sql`SELECT 1`,
            new Promise((_, reject) => {
              timer = setTimeout(
                () => reject(Object.assign(new Error("ping timed out"), { code: "CONNECT_TIMEOUT" })),
                PING_TIMEOUT_MS,
              );
            }),
          ]);
        } finally {
          clearTimeout(timer);
        }
      },
      sharedSecret: async (fresh: string) => {
        await sql`INSERT INTO settings (name, value) VALUES ('jwt_secret', ${fresh}) ON CONFLICT (name) DO NOTHING`;
        return (await sql`SELECT value FROM settings WHERE name = 'jwt_secret'`)[0].value as string;
      },
      exclusive: <T>(fn: () => Promise<T>) => exclusive(sql, fn),
    }),
    close: async () => {
      // Calls made just before close() are sent first (the driver sends a query on a later turn).
      await new Promise((resolve) => setTimeout(resolve, 0));
      await keeper.close();
      await Promise.all([sql.end({ timeout: 5 }), streams.end({ timeout: 1 })]);
    },
  };
}
