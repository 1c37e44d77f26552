/**
 * Staged rollouts on PostgreSQL (CONTRACT §13); the rules are rules/rollouts.ts. Operator actions take the write lock
 * like every checking write. Status reports do not (they would queue behind every other write): each locks its device
 * row, then its rollout's row (FOR UPDATE) before it moves the counts and settles, so reports of one rollout are
 * serialized on that row across every replica and a stage advances once, whichever replica receives the report.
 */
import { refreshDeviceKeys } from "./firmware_keys.ts";
import type postgres from "postgres";
import { deviceTypeName } from "../../../shared/schemas/device_type.ts";
import type { UpdateState } from "../../../shared/schemas/device.ts";
import type { Rollout, RolloutAction, RolloutHistoryPoint } from "../../../shared/schemas/rollout.ts";
import { DEFAULT_FAILURE_THRESHOLD, DEFAULT_STAGES } from "../../../shared/schemas/rollout.ts";
import { newId } from "../../../shared/ids.ts";
import { now } from "../clock.ts";
import { ConflictError, InvalidError, NotFoundError } from "../errors.ts";
import {
  ACTIVE_STATES,
  ALREADY_RUNNING,
  autoPauseReason,
  bucket,
  COUNT_COLUMN,
  historyMinute,
  manualPauseReason,
  nextStep,
  noFirmwareField,
  noProductTypeField,
  noRollout,
  notAllowed,
  nothingToRetry,
  OFFERING_STATES,
  ROLLOUT_COLUMNS,
  rolloutDetails,
  rolloutFromRow,
  type RolloutRow,
  rolloutTarget,
  scopeBusy,
  stageIndexSql,
  stagePercent,
  stagesOf,
  TRANSITIONS,
} from "../rules/rollouts.ts";
import { BUCKET } from "./firmware_keys.ts";
import type { RolloutStore } from "../types/rollouts.ts";
import { existing, nextRevision, read, type Sql, type Tx, write, writeRetried } from "./open.ts";
import { appendAudit } from "./audit.ts";
import { runAs, SYSTEM_ACTOR } from "../audit_context.ts";

type TxSql = postgres.TransactionSql<{ bigint: number }>;

async function getRow(tx: Tx, id: string, lock = false): Promise<RolloutRow | null> {
  const rows = await tx.unsafe(`SELECT ${ROLLOUT_COLUMNS} FROM rollouts WHERE id = $1${lock ? " FOR UPDATE" : ""}`, [
    id,
  ]);
  return rows.length ? rows[0] as unknown as RolloutRow : null;
}

export interface OfferedFirmware {
  rolloutId: string;
  firmware: { _id: string; name: string; size: number; sha256: string };
}

/** See SQLite's offeredByRollout. */
export async function offeredByRollout(
  tx: Tx,
  deviceId: string,
  productTypeId: string | null,
): Promise<OfferedFirmware | null> {
  const rows = await tx`SELECT r.id, r.stages, r.stage, r.state, f.id AS f_id, f.name AS f_name, f.size AS f_size,
      f.sha256 AS f_sha256
    FROM rollouts r JOIN firmwares f ON f.id = r.firmware_id
    WHERE r.state = ANY(${[...OFFERING_STATES, "cancelled"] as string[]}::text[])
      AND (r.product_type_id IS NULL OR r.product_type_id = ${productTypeId})
    ORDER BY r.created_at DESC, r.id DESC`;
  for (const r of rows) {
    const holds = r.state === "cancelled"
      ? (await tx`SELECT 1 FROM rollout_devices WHERE rollout_id = ${r.id} AND device_id = ${deviceId}
          AND state = 'installed'`).length > 0
      : bucket(r.id, deviceId) < stagePercent(JSON.parse(r.stages), Number(r.stage));
    if (holds) {
      return {
        rolloutId: r.id,
        firmware: { _id: r.f_id, name: r.f_name, size: Number(r.f_size), sha256: r.f_sha256 },
      };
    }
  }
  return null;
}

/**
 * See SQLite's joinRollouts. One read (usually finding nothing to join), then one statement per rollout that inserts
 * the device's row and counts it atomically, so it needs no transaction around it.
 */
export async function joinRollouts(tx: Tx, deviceId: string): Promise<void> {
  const rollouts = await tx`SELECT r.id FROM rollouts r JOIN devices d ON d.device_id = ${deviceId}
    WHERE d.firmware_id IS NULL AND r.state = ANY(${OFFERING_STATES as string[]}::text[])
      AND (r.product_type_id IS NULL OR r.product_type_id = d.product_type_id)
      AND NOT EXISTS (SELECT 1 FROM rollout_devices rd WHERE rd.rollout_id = r.id AND rd.device_id = ${deviceId})`;
  for (const r of rollouts) {
    const b = bucket(r.id, deviceId);
    const [joined] = await tx`WITH ins AS (
        INSERT INTO rollout_devices (rollout_id, device_id, bucket) VALUES (${r.id}, ${deviceId}, ${b})
        ON CONFLICT DO NOTHING RETURNING bucket
      )
      UPDATE rollouts SET targeted = targeted + (SELECT count(*) FROM ins),
        in_stage = in_stage + (SELECT count(*) FROM ins WHERE ins.bucket < rollouts.stage_percent)
      WHERE id = ${r.id} RETURNING (SELECT count(*) FROM ins WHERE ins.bucket < rollouts.stage_percent) AS n`;
    if (joined && Number(joined.n) > 0) await adoptRunning(tx, r.id, deviceId);
  }
}

/** See SQLite's adoptRunning. */
export async function adoptRunning(tx: Tx, rolloutId: string, deviceId?: string): Promise<number> {
  const args: (string | null)[] = [ALREADY_RUNNING, rolloutId];
  if (deviceId !== undefined) args.push(deviceId);
  const rows = await tx.unsafe(
    `WITH a AS (
       UPDATE rollout_devices AS rd SET state = 'installed', progress = NULL, message = $1,
         at = d.update_status::jsonb ->> 'at'
       FROM rollouts r, devices d
       WHERE rd.rollout_id = $2 ${deviceId === undefined ? "" : "AND rd.device_id = $3"} AND r.id = rd.rollout_id
         AND rd.bucket < r.stage_percent AND rd.state IS NULL AND d.device_id = rd.device_id
         AND d.update_status::jsonb ->> 'state' = 'installed' AND d.update_status::jsonb ->> 'firmwareId' = r.firmware_id
       RETURNING 1
     )
     UPDATE rollouts SET installed = installed + (SELECT count(*) FROM a) WHERE id = $2
     RETURNING (SELECT count(*) FROM a) AS n`,
    args,
  );
  return Number(rows[0]?.n ?? 0);
}

async function recordHistory(tx: Tx, r: RolloutRow, at: string): Promise<void> {
  await tx`INSERT INTO rollout_history (rollout_id, at, stage, in_stage, downloading, installing, installed, failed)
    VALUES (${r.id}, ${historyMinute(at)}, ${r.stage}, ${r.in_stage}, ${r.downloading}, ${r.installing},
      ${r.installed}, ${r.failed})
    ON CONFLICT (rollout_id, at) DO UPDATE SET stage = excluded.stage, in_stage = excluded.in_stage,
      downloading = excluded.downloading, installing = excluded.installing, installed = excluded.installed,
      failed = excluded.failed`;
}

async function enterStage(tx: Tx, r: RolloutRow, stage: number, at: string): Promise<void> {
  const percent = stagePercent(JSON.parse(r.stages), stage);
  const [{ n }] =
    await tx`SELECT count(*) AS n FROM rollout_devices WHERE rollout_id = ${r.id} AND bucket < ${percent}`;
  // Conditional on the stage it left: a stage is entered once, whoever asks.
  const entered = await tx`UPDATE rollouts SET stage = ${stage}, stage_percent = ${percent}, in_stage = ${n},
    updated_at = ${at} WHERE id = ${r.id} AND stage = ${r.stage} RETURNING 1`;
  if (entered.length) await adoptRunning(tx, r.id);
}

async function auditAuto(
  tx: Tx,
  action: "rollout.auto_advance" | "rollout.auto_pause",
  id: string,
  details: object,
): Promise<void> {
  const row = (await getRow(tx, id))!;
  await runAs(
    { actor: SYSTEM_ACTOR, ip: null },
    () => appendAudit(tx, { action, target: rolloutTarget(row), details: rolloutDetails(row, { ...details }) }),
  );
}

/** See SQLite's settle; the caller holds the rollout's row lock. */
export async function settle(tx: Tx, id: string, at: string, cause: Record<string, unknown>): Promise<void> {
  for (let guard = 0; guard < 100; guard++) {
    const row = (await getRow(tx, id, true))!;
    const r = rolloutFromRow(row);
    const step = nextStep(r, row);
    if (step === null) break;
    if (step === "pause") {
      await tx`UPDATE rollouts SET state = 'paused', paused_reason = ${
        autoPauseReason(r.stage, row, r.failureThreshold)
      },
        updated_at = ${at} WHERE id = ${id} AND state = 'running'`;
      await auditAuto(tx, "rollout.auto_pause", id, { after: cause });
      break;
    }
    if (step === "finish") {
      await tx`UPDATE rollouts SET state = 'finished', updated_at = ${at} WHERE id = ${id} AND state = 'running'`;
      await auditAuto(tx, "rollout.auto_advance", id, { after: cause, fromStage: r.stage, finished: true });
      break;
    }
    await enterStage(tx, row, r.stage + 1, at);
    await auditAuto(tx, "rollout.auto_advance", id, { after: cause, fromStage: r.stage });
  }
  await recordHistory(tx, (await getRow(tx, id))!, at);
}

/**
 * See SQLite's recordInRollout; the caller holds the device's row lock (so its previous state is read safely) and
 * leaves the device's `update` to this function: the hot rows (the rollout's, and the devices change counter the
 * devices trigger moves) are locked by ONE statement just before the commit, so reports of one rollout queue for the
 * length of that statement, not of the whole transaction. A rollout row lock orders every count change and every
 * step, across replicas; a step (rare) is taken under it.
 */
export async function recordInRollout(
  tx: Tx,
  rolloutId: string,
  deviceId: string,
  report: { state: UpdateState; progress: number | null; message: string | null },
  at: string,
  updateJson: string,
): Promise<void> {
  const b = bucket(rolloutId, deviceId);
  const [{ existed, before }] = await tx`WITH prev AS (
      SELECT state FROM rollout_devices WHERE rollout_id = ${rolloutId} AND device_id = ${deviceId}
    ), up AS (
      INSERT INTO rollout_devices (rollout_id, device_id, bucket, state, progress, message, at)
      VALUES (${rolloutId}, ${deviceId}, ${b}, ${report.state}, ${report.progress}, ${report.message}, ${at})
      ON CONFLICT (rollout_id, device_id) DO UPDATE SET state = excluded.state, progress = excluded.progress,
        message = excluded.message, at = excluded.at
      RETURNING 1
    )
    SELECT EXISTS (SELECT 1 FROM prev) AS existed, (SELECT state FROM prev) AS before, (SELECT count(*) FROM up) AS n`;
  const prev = (before ?? null) as UpdateState | null;
  if (existed && prev === report.state) {
    // Nothing to count: the counts, and so the rollout's next step, stay as they are.
    await tx`UPDATE devices SET update_status = ${updateJson} WHERE device_id = ${deviceId}`;
    return;
  }
  const sets = [`updated_at = $1`];
  if (!existed) sets.push("targeted = targeted + 1", "in_stage = in_stage + ($3::float8 < stage_percent)::int");
  if (prev) sets.push(`${COUNT_COLUMN[prev]} = ${COUNT_COLUMN[prev]} - 1`);
  sets.push(`${COUNT_COLUMN[report.state]} = ${COUNT_COLUMN[report.state]} + 1`);
  const rows = await tx.unsafe(
    `WITH r AS (
       UPDATE rollouts SET ${sets.join(", ")} WHERE id = $2 AND $3::float8 IS NOT NULL RETURNING ${ROLLOUT_COLUMNS}
     ), h AS (
       INSERT INTO rollout_history (rollout_id, at, stage, in_stage, downloading, installing, installed, failed)
       SELECT id, $4, stage, in_stage, downloading, installing, installed, failed FROM r
       ON CONFLICT (rollout_id, at) DO UPDATE SET stage = excluded.stage, in_stage = excluded.in_stage,
         downloading = excluded.downloading, installing = excluded.installing, installed = excluded.installed,
         failed = excluded.failed
     ), d AS (
       UPDATE devices SET update_status = $5 WHERE device_id = $6
     )
     SELECT * FROM r`,
    [at, rolloutId, b, historyMinute(at), updateJson, deviceId],
  );
  const row = rows[0] as unknown as RolloutRow;
  // A cancelled rollout holds the devices that installed it: a report for it may change that.
  if (row.state === "cancelled") await refreshDeviceKeys(tx, "d.device_id = $1", [deviceId]);
  if (nextStep(rolloutFromRow(row), row) !== null) {
    await settle(tx, rolloutId, at, { report: { deviceId, state: report.state } });
  }
}

async function busyWith(tx: Tx, r: RolloutRow): Promise<void> {
  const others =
    await tx`SELECT name FROM rollouts WHERE id != ${r.id} AND state = ANY(${ACTIVE_STATES as string[]}::text[])
    AND product_type_id IS NOT DISTINCT FROM ${r.product_type_id} LIMIT 1`;
  if (!others.length) return;
  let pt: string | null = null;
  if (r.product_type_id) {
    const pts = await tx`SELECT name FROM product_types WHERE id = ${r.product_type_id}`;
    pt = pts.length ? pts[0].name : r.product_type_id;
  }
  throw new ConflictError(scopeBusy(pt, others[0].name));
}

const JOIN_CHUNK = 5000;

async function start(tx: Tx, row: RolloutRow, at: string): Promise<void> {
  await busyWith(tx, row);
  const ids =
    (row.product_type_id === null
      ? await tx`SELECT device_id FROM devices WHERE firmware_id IS NULL`
      : await tx`SELECT device_id FROM devices WHERE firmware_id IS NULL AND product_type_id = ${row.product_type_id}`)
      .map((d) => d.device_id as string);
  for (let i = 0; i < ids.length; i += JOIN_CHUNK) {
    const chunk = ids.slice(i, i + JOIN_CHUNK);
    await tx`INSERT INTO rollout_devices (rollout_id, device_id, bucket)
      SELECT ${row.id}, d, b FROM unnest(${chunk}::text[], ${chunk.map((d) => bucket(row.id, d))}::float8[]) AS u(d, b)
      ON CONFLICT DO NOTHING`;
  }
  const [{ n }] = await tx`SELECT count(*) AS n FROM rollout_devices WHERE rollout_id = ${row.id}`;
  await tx`UPDATE rollouts SET state = 'running', targeted = ${n}, updated_at = ${at} WHERE id = ${row.id}`;
  await enterStage(tx, (await getRow(tx, row.id))!, 0, at);
}

async function act(tx: TxSql, id: string, action: RolloutAction, by: string, product: string): Promise<Rollout> {
  const row = await getRow(tx, id, true);
  if (!row) throw new NotFoundError(noRollout(id));
  if (!TRANSITIONS[action].from.includes(row.state)) throw new ConflictError(notAllowed(action, row));
  const at = now();
  let retried = 0;
  switch (action) {
    case "start":
      await start(tx, row, at);
      break;
    case "pause":
      await tx`UPDATE rollouts SET state = 'paused', paused_reason = ${manualPauseReason(by)}, updated_at = ${at}
        WHERE id = ${id}`;
      break;
    case "resume":
      // Resuming continues the current stage: it never advances, even when that stage is complete (CONTRACT §13).
      await busyWith(tx, row);
      await tx`UPDATE rollouts SET state = 'running', paused_reason = NULL, failed_accepted = failed,
        updated_at = ${at} WHERE id = ${id}`;
      break;
    case "advance": {
      const stages = JSON.parse(row.stages) as number[];
      if (row.stage >= stages.length - 1) {
        await tx`UPDATE rollouts SET state = 'finished', updated_at = ${at} WHERE id = ${id}`;
      } else await enterStage(tx, row, row.stage + 1, at);
      break;
    }
    case "cancel":
      await tx`UPDATE rollouts SET state = 'cancelled', paused_reason = NULL, updated_at = ${at} WHERE id = ${id}`;
      break;
    case "retry": {
      // The failed devices are pending again: their failure no longer counts, against the threshold either.
      const cleared = await tx`UPDATE rollout_devices SET state = NULL, progress = NULL, message = NULL, at = NULL
        WHERE rollout_id = ${id} AND state = 'failed' RETURNING 1`;
      const n = cleared.length;
      if (n === 0) throw new ConflictError(nothingToRetry(row));
      await tx`UPDATE rollouts SET failed = failed - ${n}, failed_accepted = greatest(0, failed_accepted - ${n}),
        updated_at = ${at} WHERE id = ${id}`;
      retried = n;
      break;
    }
    case "promote": {
      if (!(await existing(tx, "firmwares", [row.firmware_id])).has(row.firmware_id)) {
        throw new ConflictError(`Rollout ${row.name}: its firmware was deleted, so it cannot be promoted.`);
      }
      await tx`UPDATE device_types SET default_firmware = ${row.firmware_id}, revision = ${await nextRevision(tx)}
        WHERE name = ${deviceTypeName(product)}`;
      await tx`UPDATE rollouts SET updated_at = ${at} WHERE id = ${id}`;
      break;
    }
  }
  const done = (await getRow(tx, id))!;
  await appendAudit(tx, {
    action: `rollout.${action}`,
    target: rolloutTarget(done),
    details: rolloutDetails(
      done,
      action === "promote"
        ? { defaultOf: deviceTypeName(product), firmwareId: done.firmware_id }
        : { fromState: row.state, fromStage: Number(row.stage), ...(action === "retry" ? { retried } : {}) },
    ),
  });
  // Resume and retry never step the rollout by themselves: the next step is an operator's or a later report's.
  if (action === "start" || action === "advance") await settle(tx, id, at, { action });
  else await recordHistory(tx, (await getRow(tx, id))!, at);
  return rolloutFromRow((await getRow(tx, id))!);
}

export function postgresRollouts(sql: Sql): RolloutStore {
  return {
    list: async () =>
      (await sql.unsafe(
        `SELECT ${ROLLOUT_COLUMNS} FROM rollouts ORDER BY created_at DESC, id DESC`,
      ) as unknown as RolloutRow[]).map(rolloutFromRow),
    get: async (id) => {
      const row = await getRow(sql, id);
      return row ? rolloutFromRow(row) : null;
    },
    create: (input, by) =>
      write(sql, async (tx) => {
        if (!(await existing(tx, "firmwares", [input.firmwareId])).size) {
          throw new InvalidError(noFirmwareField(input.firmwareId));
        }
        if (input.productTypeId !== null && !(await existing(tx, "product_types", [input.productTypeId])).size) {
          throw new InvalidError(noProductTypeField(input.productTypeId));
        }
        const id = newId();
        const at = now();
        await tx`INSERT INTO rollouts (id, name, firmware_id, product_type_id, stages, failure_threshold, auto_advance,
            state, created_at, updated_at, created_by)
          VALUES (${id}, ${input.name}, ${input.firmwareId}, ${input.productTypeId},
            ${JSON.stringify(input.stages ?? DEFAULT_STAGES)}, ${input.failureThreshold ?? DEFAULT_FAILURE_THRESHOLD},
            ${input.autoAdvance !== false}, 'draft', ${at}, ${at}, ${by.email})`;
        const row = (await getRow(tx, id))!;
        await appendAudit(tx, {
          action: "rollout.create",
          target: rolloutTarget(row),
          details: {
            firmwareId: row.firmware_id,
            productTypeId: row.product_type_id,
            stages: JSON.parse(row.stages),
            failureThreshold: Number(row.failure_threshold),
            autoAdvance: Boolean(row.auto_advance),
          },
        });
        return rolloutFromRow(row);
      }),
    // Retried on a deadlock: an action that moves device rows (retry, a stage entered that counts devices already
    // running the firmware) holds the rollout's row first, a report holds its device row first.
    act: (id, action, by, product) => writeRetried(sql, (tx) => act(tx, id, action, by.email, product)),
    devices: (id, { state, page, rowsPerPage }) =>
      read(sql, async (tx) => {
        const row = await getRow(tx, id);
        if (!row) return null;
        const where = state === undefined ? "" : state === "pending" ? "AND state IS NULL" : "AND state = $3";
        const args: (string | number)[] = [id, Number(row.stage_percent)];
        if (state !== undefined && state !== "pending") args.push(state);
        const [{ n }] = await tx.unsafe(
          `SELECT count(*) AS n FROM rollout_devices WHERE rollout_id = $1 AND bucket < $2 ${where}`,
          args,
        );
        const data = await tx.unsafe(
          `SELECT device_id AS "deviceId", state, progress, message, at FROM rollout_devices
           WHERE rollout_id = $1 AND bucket < $2 ${where} ORDER BY device_id
           LIMIT ${rowsPerPage} OFFSET ${page * rowsPerPage}`,
          args,
        );
        return {
          data: data.map((d) => ({
            deviceId: d.deviceId,
            state: d.state,
            progress: d.progress,
            message: d.message,
            at: d.at,
          })),
          total: Number(n),
          page,
          per_page: rowsPerPage,
        };
      }),
    history: (id) =>
      read(sql, async (tx) => {
        if (!await getRow(tx, id)) return null;
        const rows = await tx`SELECT at, stage, in_stage, downloading, installing, installed, failed
          FROM rollout_history WHERE rollout_id = ${id} ORDER BY at`;
        return rows.map((p): RolloutHistoryPoint => ({
          at: p.at,
          stage: Number(p.stage),
          inStage: Number(p.in_stage),
          downloading: Number(p.downloading),
          installing: Number(p.installing),
          installed: Number(p.installed),
          failed: Number(p.failed),
        }));
      }),
    stages: (id) =>
      read(sql, async (tx) => {
        const row = await getRow(tx, id);
        if (!row) return null;
        const r = rolloutFromRow(row);
        const args: (string | number)[] = [];
        const p = (v: string | number) => {
          args.push(v);
          return `$${args.length}`;
        };
        let rows;
        if (r.state === "draft") {
          // No device rows yet: the devices a start would target now, by the same bucket rule.
          const k = stageIndexSql(r.stages, "x.bucket", p);
          const b = BUCKET(`${p(id)}::text`);
          const scope = r.productTypeId === null ? "" : `AND d.product_type_id = ${p(r.productTypeId)}`;
          rows = await tx.unsafe(
            `SELECT ${k} AS k, NULL AS state, count(*) AS n
             FROM (SELECT ${b} AS bucket FROM devices d WHERE d.firmware_id IS NULL ${scope}) x GROUP BY 1`,
            args,
          );
        } else {
          const k = stageIndexSql(r.stages, "bucket", p);
          rows = await tx.unsafe(
            `SELECT ${k} AS k, state, count(*) AS n FROM rollout_devices WHERE rollout_id = ${p(id)} GROUP BY 1, 2`,
            args,
          );
        }
        return stagesOf(r, rows.map((g) => ({ k: Number(g.k), state: g.state ?? null, n: Number(g.n) })));
      }),
    targets: async (productTypeId) => {
      const [{ n }] = productTypeId === null
        ? await sql`SELECT count(*) AS n FROM devices WHERE firmware_id IS NULL`
        : await sql`SELECT count(*) AS n FROM devices WHERE firmware_id IS NULL AND product_type_id = ${productTypeId}`;
      return Number(n);
    },
  };
}
