/**
 * The PostgreSQL engine (DATABASE_URL): a pool of `poolSize` connections per process, any number of processes on one
 * database. See open.ts for the concurrency model.
 */
import type { OpenStores } from "../stores.ts";
import { storesOn } from "../stores/registry.ts";
import { connect, exclusive, isUnavailable, migrate, type PostgresOptions, unavailable } from "./open.ts";
import { postgresEngine } from "./runner.ts";
import { guarded } from "../runner.ts";
import { postgresFleetCounts } from "./fleet_counts.ts";
import { holdDriverFaults, keepWarm, Sockets, Watchdog } from "./watchdog.ts";

/** How long a health check waits for the database's answer. */
const PING_TIMEOUT_MS = 1500;

/** Connects and migrates (under an advisory lock); NewerSchemaError leaves a newer database untouched. */
export async function openPostgresStores(options: PostgresOptions): Promise<OpenStores> {
  // The requests' pool is kept open whole (no growth under a burst: keepWarm); the watchdog's probe has a connection
  // of its own, so that a busy pool never looks like a frozen server.
  holdDriverFaults();
  const pool = new Sockets(), streamSockets = new Sockets(false), probeSockets = new Sockets();
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
  const warm = keepWarm(pool, options.poolSize, () => sql`SELECT 1`, () => watchdog.frozen);
  // Long streamed reads (the treatment list, read as slowly as the client takes it) hold a connection each for their
  // whole length: they get a pool of their own, so that they can never take every connection from the requests. Its
  // transactions wait on the client, so idle_in_transaction_session_timeout does not apply there.
  const streams = connect({ ...options, poolSize: Math.max(2, Math.ceil(options.poolSize / 2)) }, {
    sockets: streamSockets,
    idleInTransactionMs: 0,
  });
  const engine = postgresEngine(sql, watchdog, streams);
  return storesOn(engine, {
    fleetCounts: postgresFleetCounts(),
    system: guarded(engine, {
      ping: async () => {
        const late = Object.assign(new Error("ping timed out"), { code: "CONNECT_TIMEOUT" });
        const signal = AbortSignal.timeout(PING_TIMEOUT_MS);
        const timedOut = new Promise((_, reject) => signal.addEventListener("abort", () => reject(late)));
        await Promise.race([sql`SELECT 1`, timedOut]);
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
      warm.close();
      await Promise.all([sql.end({ timeout: 5 }), streams.end({ timeout: 1 }), probe.end({ timeout: 1 })]);
      watchdog.close();
    },
  });
}
