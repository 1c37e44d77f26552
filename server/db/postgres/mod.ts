/**
 * The PostgreSQL engine (DATABASE_URL): a pool of `poolSize` connections per process, any number of processes on one
 * database. See open.ts for the concurrency model.
 */
import type { OpenStores } from "../stores.ts";
import { auditStore } from "../stores/audit.ts";
import { apiTokenStore } from "../stores/api_tokens.ts";
import { postgresDemo } from "./demo.ts";
import { firmwareStore } from "../stores/firmwares.ts";
import { loginAttemptStore } from "../stores/login_attempts.ts";
import { connect, exclusive, isUnavailable, migrate, type PostgresOptions, unavailable } from "./open.ts";
import { postgresEngine } from "./runner.ts";
import { guarded } from "../runner.ts";
import { deviceTypeStore } from "../stores/device_types.ts";
import { deviceApiStore } from "../stores/device_api.ts";
import { deviceStore } from "../stores/devices.ts";
import { keepKeys } from "../stores/firmware_keys.ts";
import { productTypeStore } from "../stores/product_types.ts";
import { rolloutStore } from "../stores/rollouts.ts";
import { treatmentStore } from "../stores/treatments.ts";
import { postgresFleetCounts } from "./fleet_counts.ts";
import { holdDriverFaults, keepWarm, Sockets, Watchdog } from "./watchdog.ts";
import { operatorStore } from "../stores/operators.ts";
import { releaseKeyStore } from "../stores/release_keys.ts";
import { savedViewStore } from "../stores/saved_views.ts";
import { postgresTreatments } from "./treatments.ts";

/** How long a health check waits for the database's answer. */
const PING_TIMEOUT_MS = 1500;

/**
 * The list's chunks, with "cannot reach the database" as StoreUnavailableError (before the first chunk: a 503); each
 * read of the database under the watchdog (the client's own pace is not).
 */
async function* guardedChunks<T>(chunks: AsyncIterable<T>, watchdog: Watchdog): AsyncGenerator<T> {
  const it = chunks[Symbol.asyncIterator]();
  let done = false;
  try {
    for (;;) {
      const step = await watchdog.watch(it.next());
      if (step.done) {
        done = true;
        return;
      }
      yield step.value;
    }
  } catch (err) {
    done = true;
    throw isUnavailable(err) ? unavailable(err) : err;
  } finally {
    if (!done) await watchdog.watch(Promise.resolve(it.return?.())).catch(() => {});
  }
}

/** Connects and migrates (under an advisory lock); NewerSchemaError leaves a newer database untouched. */
export async function openPostgresStores(options: PostgresOptions): Promise<OpenStores> {
  // The requests' pool is kept open whole (no growth under a burst: keepWarm); the watchdog's probe has a connection
  // of its own, so that a busy pool never looks like a frozen server.
  holdDriverFaults();
  const pool = new Sockets(), streamSockets = new Sockets(), probeSockets = new Sockets();
  const sql = connect(options, { sockets: pool, idleTimeoutSeconds: 0 });
  const probe = connect({ ...options, poolSize: 1 }, { sockets: probeSockets, idleTimeoutSeconds: 0 });
  const watchdog = new Watchdog(() => probe`SELECT 1`, [pool, streamSockets, probeSockets]);
  const endAll = () =>
    Promise.all([sql.end({ timeout: 1 }), probe.end({ timeout: 1 })]).catch(() => {}).then(() => watchdog.close());
  try {
    await watchdog.watch(migrate(sql));
  } catch (err) {
    await endAll();
    throw isUnavailable(err) ? unavailable(err) : err;
  }
  const warm = keepWarm(pool, options.poolSize, () => sql`SELECT 1`);
  // Long streamed reads (the treatment list, read as slowly as the client takes it) hold a connection each for their
  // whole length: they get a pool of their own, so that they can never take every connection from the requests. Its
  // transactions wait on the client, so idle_in_transaction_session_timeout does not apply there.
  const streams = connect({ ...options, poolSize: Math.max(2, Math.ceil(options.poolSize / 2)) }, {
    sockets: streamSockets,
    idleInTransactionMs: 0,
  });
  const treatments = postgresTreatments(sql, streams);
  const engine = postgresEngine(sql, watchdog);
  const keeper = keepKeys(engine);
  const g = <S extends object>(store: S) => guarded(engine, store);
  const deviceApi = deviceApiStore(engine);
  return {
    devices: deviceStore(engine, postgresFleetCounts(engine)),
    productTypes: productTypeStore(engine),
    deviceTypes: deviceTypeStore(engine),
    firmwares: firmwareStore(engine),
    treatments: treatmentStore(engine, {
      import: g(treatments).import,
      listJsonChunks: () => guardedChunks(treatments.listJsonChunks(), watchdog),
    }),
    operators: operatorStore(engine),
    deviceApi,
    demo: g(postgresDemo(sql)),
    apiTokens: apiTokenStore(engine),
    loginAttempts: loginAttemptStore(engine),
    rollouts: rolloutStore(engine),
    savedViews: savedViewStore(engine),
    releaseKeys: releaseKeyStore(engine),
    audit: auditStore(engine),
    system: g({
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
      await deviceApi.closeSeen();
      warm.close();
      await keeper.close();
      await Promise.all([sql.end({ timeout: 5 }), streams.end({ timeout: 1 }), probe.end({ timeout: 1 })]);
      watchdog.close();
    },
  };
}
