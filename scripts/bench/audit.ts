/**
 * The audit trail's figures (issue 16), on both engines: what the entry adds to a write (the same device write
 * without and with appendAudit, on the engine's own code), PATCH device over HTTP (with its entry), and GET audit at
 * a trail of `entries` entries: first, middle and last page unfiltered (a range of the primary key) and filtered
 * pages (an index per filter; the total counted up to 10,000 past the page).
 */
import { ApiClient } from "../../shared/client.ts";
import { postgresWriteCost, sqliteWriteCost, type WriteCost } from "../../testing/audit_bench.ts";
import { seedAuditPostgres, seedAuditSqlite } from "../../testing/audit_seed.ts";
import { startPostgres } from "../../testing/postgres.ts";
import { seedPostgresDevices } from "../../testing/postgres_bench.ts";
import { ADMIN, seedDevices, serverEnv } from "./steps.ts";
import { fixed, load, type LoadResult, ROOT, spawnServer, timed } from "./util.ts";

export interface AuditEngineFigures {
  entries: number;
  seedMs: number;
  write: WriteCost;
  patch: LoadResult;
  first: LoadResult;
  middle: LoadResult;
  last: LoadResult;
  byAction: LoadResult;
  byTarget: LoadResult;
  byActorDeep: LoadResult;
  /** audit-verify over the whole trail. */
  verifyMs: number;
}

export interface AuditFigures {
  sqlite: AuditEngineFigures;
  postgres: AuditEngineFigures;
}

const DEVICES = 1000;

export async function benchAudit(
  tmp: string,
  size: { audit: number; auditWrites: number; seconds: number },
  say: (s: string) => void,
): Promise<AuditFigures> {
  say(`A1. SQLite: ${size.audit} audit entries; a write with and without its entry; GET audit pages`);
  const dir = `${tmp}/data-audit-sqlite`;
  await Deno.mkdir(dir);
  const file = `${dir}/console.sqlite3`;
  seedDevices(dir, DEVICES);
  const seeded = await timed(() => seedAuditSqlite(file, size.audit, { devices: DEVICES }));
  const write = await sqliteWriteCost(file, size.auditWrites);
  const sqlite = {
    entries: size.audit,
    seedMs: seeded.ms,
    write,
    ...await httpFigures(serverEnv(dir), size.seconds),
  };
  await Deno.remove(dir, { recursive: true });

  say(`A2. PostgreSQL: the same`);
  await using pg = await startPostgres();
  const url = await pg.createDatabase();
  const pgDir = `${tmp}/data-audit-postgres`;
  await Deno.mkdir(pgDir);
  const env = { ...serverEnv(pgDir), DATABASE_URL: url };
  // A server start migrates the database; the fixtures go in with it stopped.
  await (await spawnServer("server/main.ts", env)).stop();
  await seedPostgresDevices(url, 0, DEVICES);
  const pgSeeded = await timed(() => seedAuditPostgres(url, size.audit, { devices: DEVICES }));
  const pgWrite = await postgresWriteCost(url, size.auditWrites);
  const postgres = {
    entries: size.audit,
    seedMs: pgSeeded.ms,
    write: pgWrite,
    ...await httpFigures(env, size.seconds),
  };
  await Deno.remove(pgDir, { recursive: true });
  return { sqlite, postgres };
}

async function httpFigures(env: Record<string, string>, seconds: number) {
  const srv = await spawnServer("server/main.ts", env);
  try {
    const { token } = await new ApiClient({ baseUrl: srv.url }).login(ADMIN.email, ADMIN.password);
    const auth = { Authorization: `Bearer ${token}` };
    const c = 10;
    const patch = await load(`${srv.url}/api/v1/devices/DEV-000001`, seconds, c, {
      ...auth,
      "Content-Type": "application/json",
    }, ["--method", "PATCH", "--body", JSON.stringify({ deviceId: "DEV-000001", firmware: null })]);
    const api = new ApiClient({ baseUrl: srv.url, token: () => token });
    const total = (await api.listAudit({ rowsPerPage: 1 })).total;
    const pages = Math.ceil(total / 25);
    const get = (q: string) => load(`${srv.url}/api/v1/audit?rowsPerPage=25&${q}`, seconds, c, auth);
    await load(`${srv.url}/api/v1/audit?rowsPerPage=25&page=0`, 1, c, auth); // warm-up
    const first = await get("page=0");
    const middle = await get(`page=${Math.floor(pages / 2)}`);
    const last = await get(`page=${pages - 1}`);
    const byAction = await get("page=0&action=firmware.upload");
    const byTarget = await get("page=0&targetType=device&targetId=DEV-000042");
    const byActorDeep = await get("page=100&actor=op-3%40example.com");
    const verified = await timed(async () => {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "scripts/audit_verify.ts"],
        cwd: ROOT,
        env,
        stdout: "piped",
        stderr: "piped",
      }).output();
      if (out.code !== 0) throw new Error(`audit-verify: ${new TextDecoder().decode(out.stderr)}`);
    });
    return { patch, first, middle, last, byAction, byTarget, byActorDeep, verifyMs: verified.ms };
  } finally {
    await srv.stop();
  }
}

/** The rows of docs/PERFORMANCE.md for the audit trail. */
export function auditRows(a: AuditFigures): [string, string, string, string][] {
  const n = (x: number) => x.toLocaleString("en");
  const ok = (met: boolean) => met ? "yes" : "**no**";
  const rows: [string, string, string, string][] = [];
  for (const [engine, f] of [["SQLite", a.sqlite], ["PostgreSQL", a.postgres]] as const) {
    const added = f.write.auditedUs - f.write.plainUs;
    rows.push(
      [
        `${engine}: a device write without / with its audit entry (the engine's own write transaction)`,
        `${fixed(f.write.plainUs, 0)} µs / ${fixed(f.write.auditedUs, 0)} µs: +${fixed(added, 0)} µs (${
          fixed(f.write.auditedUs / f.write.plainUs)
        }×)`,
        "measured",
        "-",
      ],
      [
        `${engine}: PATCH device over HTTP (with its entry), 10 connections`,
        `${fixed(f.patch.rps, 0)} req/s, p99 ${f.patch.p99} ms`,
        "measured",
        "-",
      ],
      [
        `${engine}: GET audit at ${n(f.entries)} entries, first / middle / last page: p99`,
        `${f.first.p99} / ${f.middle.p99} / ${f.last.p99} ms (${fixed(f.first.rps, 0)} / ${fixed(f.middle.rps, 0)} / ${
          fixed(f.last.rps, 0)
        } req/s)`,
        "≤ 10 ms",
        ok(Math.max(f.first.p99, f.middle.p99, f.last.p99) <= 10),
      ],
      [
        `${engine}: GET audit filtered (action: 1 in 5 entries; one device's ${
          n(Math.round(f.entries / DEVICES))
        } entries; one actor, page 100): p99`,
        `${f.byAction.p99} / ${f.byTarget.p99} / ${f.byActorDeep.p99} ms`,
        "measured",
        "-",
      ],
      [
        `${engine}: audit-verify of ${n(f.entries)} entries`,
        `${fixed(f.verifyMs / 1000, 1)} s`,
        "measured",
        "-",
      ],
    );
  }
  return rows;
}

export const auditFailures = (a: AuditFigures) =>
  [a.sqlite, a.postgres].reduce(
    (sum, f) =>
      sum + f.patch.non2xx + f.first.non2xx + f.middle.non2xx + f.last.non2xx + f.byAction.non2xx +
      f.byTarget.non2xx + f.byActorDeep.non2xx,
    0,
  );
