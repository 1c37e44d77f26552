/** Staged rollouts on SQLite (CONTRACT §13); the rules are rules/rollouts.ts. */
import { refreshDeviceKeys } from "./firmware_keys.ts";
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
import { type Db, firstMissingId, snapshot, sql, transaction } from "./open.ts";
import { promised } from "./promised.ts";
import { appendAudit } from "./audit.ts";
import { runAs, SYSTEM_ACTOR } from "../audit_context.ts";
import { nextRevision } from "./revisions.ts";

const inList = (states: readonly string[]) => states.map((s) => `'${s}'`).join(", ");

function getRow(db: Db, id: string): RolloutRow | null {
  return (sql(db, `SELECT ${ROLLOUT_COLUMNS} FROM rollouts WHERE id = ?`).get(id) as RolloutRow | undefined) ?? null;
}

/** The firmware a rollout offers a device, with the rollout: see resolveFirmware. */
export interface OfferedFirmware {
  rolloutId: string;
  firmware: { _id: string; name: string; size: number; sha256: string };
}

/**
 * The rollout that decides a device's firmware (CONTRACT §13): the newest running, paused or finished rollout of its
 * scope whose current stage holds it, or a cancelled one it installed; null when none does (its custom firmware, which
 * wins over any rollout, is the caller's to check first). A rollout whose firmware was deleted offers nothing.
 */
export function offeredByRollout(db: Db, deviceId: string, productTypeId: string | null): OfferedFirmware | null {
  const rows = sql(
    db,
    `SELECT r.id, r.stages, r.stage, r.state, f.id AS f_id, f.name AS f_name, f.size AS f_size, f.sha256 AS f_sha256
     FROM rollouts r JOIN firmwares f ON f.id = r.firmware_id
     WHERE r.state IN (${inList([...OFFERING_STATES, "cancelled"])})
       AND (r.product_type_id IS NULL OR r.product_type_id = ?)
     ORDER BY r.created_at DESC, r.id DESC`,
  ).all(productTypeId ?? null) as {
    id: string;
    stages: string;
    stage: number;
    state: string;
    f_id: string;
    f_name: string;
    f_size: number;
    f_sha256: string;
  }[];
  for (const r of rows) {
    const holds = r.state === "cancelled"
      ? sql(db, "SELECT 1 FROM rollout_devices WHERE rollout_id = ? AND device_id = ? AND state = 'installed'")
        .get(r.id, deviceId) !== undefined
      : bucket(r.id, deviceId) < stagePercent(JSON.parse(r.stages), r.stage);
    if (holds) {
      return { rolloutId: r.id, firmware: { _id: r.f_id, name: r.f_name, size: r.f_size, sha256: r.f_sha256 } };
    }
  }
  return null;
}

/**
 * A device that checked in joins the running, paused or finished rollouts of its scope it is not part of yet (a
 * device that appeared after the start, or changed product type): by the same bucket rule, counted at once.
 */
export function joinRollouts(db: Db, deviceId: string): void {
  const device = sql(db, "SELECT product_type_id, firmware_id FROM devices WHERE device_id = ?").get(deviceId) as
    | { product_type_id: string | null; firmware_id: string | null }
    | undefined;
  if (!device || device.firmware_id !== null) return;
  const rollouts = sql(
    db,
    `SELECT r.id, r.stage_percent FROM rollouts r
     WHERE r.state IN (${inList(OFFERING_STATES)}) AND (r.product_type_id IS NULL OR r.product_type_id = ?)
       AND NOT EXISTS (SELECT 1 FROM rollout_devices rd WHERE rd.rollout_id = r.id AND rd.device_id = ?)`,
  ).all(device.product_type_id, deviceId) as { id: string; stage_percent: number }[];
  for (const r of rollouts) {
    const b = bucket(r.id, deviceId);
    sql(db, "INSERT INTO rollout_devices (rollout_id, device_id, bucket) VALUES (?, ?, ?)").run(r.id, deviceId, b);
    sql(db, "UPDATE rollouts SET targeted = targeted + 1, in_stage = in_stage + ? WHERE id = ?")
      .run(b < r.stage_percent ? 1 : 0, r.id);
    if (b < r.stage_percent) adoptRunning(db, r.id, deviceId);
  }
}

/**
 * The devices of a rollout's current stage without a report in it that already run its firmware (their latest report
 * says installed, of this firmware: e.g. it was the default) are counted installed at once, so the stage never waits
 * for a report that will not come. Only `deviceId` when given. Answers how many.
 */
export function adoptRunning(db: Db, rolloutId: string, deviceId?: string): number {
  const one = deviceId === undefined ? "" : "AND rd.device_id = ?";
  const { changes } = sql(
    db,
    `UPDATE rollout_devices AS rd SET state = 'installed', progress = NULL, message = ?,
       at = json_extract(d.update_status, '$.at')
     FROM rollouts r, devices d
     WHERE rd.rollout_id = ? ${one} AND r.id = rd.rollout_id AND rd.bucket < r.stage_percent AND rd.state IS NULL
       AND d.device_id = rd.device_id AND json_extract(d.update_status, '$.state') = 'installed'
       AND json_extract(d.update_status, '$.firmwareId') = r.firmware_id`,
  ).run(ALREADY_RUNNING, rolloutId, ...(deviceId === undefined ? [] : [deviceId]));
  const n = Number(changes);
  if (n > 0) sql(db, "UPDATE rollouts SET installed = installed + ? WHERE id = ?").run(n, rolloutId);
  return n;
}

function recordHistory(db: Db, r: RolloutRow, at: string): void {
  sql(
    db,
    `INSERT INTO rollout_history (rollout_id, at, stage, in_stage, downloading, installing, installed, failed)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (rollout_id, at) DO UPDATE SET stage = excluded.stage, in_stage = excluded.in_stage,
       downloading = excluded.downloading, installing = excluded.installing, installed = excluded.installed,
       failed = excluded.failed`,
  ).run(r.id, historyMinute(at), r.stage, r.in_stage, r.downloading, r.installing, r.installed, r.failed);
}

/** Moves a rollout to a stage: its percentage and the count of devices it now holds. */
function enterStage(db: Db, r: RolloutRow, stage: number, at: string): void {
  const stages = JSON.parse(r.stages) as number[];
  const percent = stagePercent(stages, stage);
  const { n } = sql(db, "SELECT COUNT(*) AS n FROM rollout_devices WHERE rollout_id = ? AND bucket < ?")
    .get(r.id, percent) as { n: number };
  sql(db, "UPDATE rollouts SET stage = ?, stage_percent = ?, in_stage = ?, updated_at = ? WHERE id = ?")
    .run(stage, percent, n, at, r.id);
  adoptRunning(db, r.id);
}

/** An automatic step in the audit trail: the system's, with what led to it. */
function auditAuto(db: Db, action: "rollout.auto_advance" | "rollout.auto_pause", id: string, details: object): void {
  const row = getRow(db, id)!;
  runAs(
    { actor: SYSTEM_ACTOR, ip: null },
    () => appendAudit(db, { action, target: rolloutTarget(row), details: rolloutDetails(row, { ...details }) }),
  );
}

/**
 * Lets a running rollout pause, advance or finish as its counts say (rules/rollouts.ts nextStep), repeatedly: a stage
 * that holds no device or whose devices all reported already advances at once. Runs inside the caller's transaction;
 * each step is in the audit trail with `cause` (the report or the operator action after which it was taken).
 */
export function settle(db: Db, id: string, at: string, cause: Record<string, unknown>): void {
  for (let guard = 0; guard < 100; guard++) {
    const row = getRow(db, id)!;
    const r = rolloutFromRow(row);
    const step = nextStep(r, row);
    if (step === null) break;
    if (step === "pause") {
      sql(db, "UPDATE rollouts SET state = 'paused', paused_reason = ?, updated_at = ? WHERE id = ?")
        .run(autoPauseReason(r.stage, row, r.failureThreshold), at, id);
      auditAuto(db, "rollout.auto_pause", id, { after: cause });
      break;
    }
    if (step === "finish") {
      sql(db, "UPDATE rollouts SET state = 'finished', updated_at = ? WHERE id = ?").run(at, id);
      auditAuto(db, "rollout.auto_advance", id, { after: cause, fromStage: r.stage, finished: true });
      break;
    }
    enterStage(db, row, r.stage + 1, at);
    auditAuto(db, "rollout.auto_advance", id, { after: cause, fromStage: r.stage });
  }
  recordHistory(db, getRow(db, id)!, at);
}

/**
 * A device's report counted in the rollout that offered it the firmware: its row (joined now if it had none), the
 * state counts moved from its previous state to this one, then the rollout settles.
 */
export function recordInRollout(
  db: Db,
  rolloutId: string,
  deviceId: string,
  report: { state: UpdateState; progress: number | null; message: string | null },
  at: string,
): void {
  const prev = sql(db, "SELECT state FROM rollout_devices WHERE rollout_id = ? AND device_id = ?")
    .get(rolloutId, deviceId) as { state: UpdateState | null } | undefined;
  if (!prev) {
    const b = bucket(rolloutId, deviceId);
    sql(db, "INSERT INTO rollout_devices (rollout_id, device_id, bucket) VALUES (?, ?, ?)").run(rolloutId, deviceId, b);
    sql(db, "UPDATE rollouts SET targeted = targeted + 1, in_stage = in_stage + (? < stage_percent) WHERE id = ?")
      .run(b, rolloutId);
  }
  sql(
    db,
    "UPDATE rollout_devices SET state = ?, progress = ?, message = ?, at = ? WHERE rollout_id = ? AND device_id = ?",
  )
    .run(report.state, report.progress, report.message, at, rolloutId, deviceId);
  const before = prev?.state ?? null;
  if (before !== report.state) {
    const dec = before ? `${COUNT_COLUMN[before]} = ${COUNT_COLUMN[before]} - 1, ` : "";
    const col = COUNT_COLUMN[report.state];
    sql(db, `UPDATE rollouts SET ${dec}${col} = ${col} + 1, updated_at = ? WHERE id = ?`).run(at, rolloutId);
  }
  // A cancelled rollout holds the devices that installed it: a report for it may change that.
  if ((sql(db, "SELECT state FROM rollouts WHERE id = ?").get(rolloutId) as { state: string }).state === "cancelled") {
    refreshDeviceKeys(db, "d.device_id = ?", [deviceId]);
  }
  settle(db, rolloutId, at, { report: { deviceId, state: report.state } });
}

function busyWith(db: Db, r: RolloutRow): void {
  const other = sql(
    db,
    `SELECT name FROM rollouts WHERE id != ? AND state IN (${inList(ACTIVE_STATES)})
     AND product_type_id IS ? LIMIT 1`,
  ).get(r.id, r.product_type_id) as { name: string } | undefined;
  if (!other) return;
  const pt = r.product_type_id
    ? (sql(db, "SELECT name FROM product_types WHERE id = ?").get(r.product_type_id) as { name: string } | undefined)
      ?.name ?? r.product_type_id
    : null;
  throw new ConflictError(scopeBusy(pt, other.name));
}

function start(db: Db, row: RolloutRow, at: string): void {
  busyWith(db, row);
  const ids =
    (row.product_type_id === null
      ? sql(db, "SELECT device_id FROM devices WHERE firmware_id IS NULL").all()
      : sql(db, "SELECT device_id FROM devices WHERE firmware_id IS NULL AND product_type_id = ?").all(
        row.product_type_id,
      )) as { device_id: string }[];
  const insert = sql(db, "INSERT OR IGNORE INTO rollout_devices (rollout_id, device_id, bucket) VALUES (?, ?, ?)");
  for (const { device_id } of ids) insert.run(row.id, device_id, bucket(row.id, device_id));
  const { n } = sql(db, "SELECT COUNT(*) AS n FROM rollout_devices WHERE rollout_id = ?").get(row.id) as { n: number };
  sql(db, "UPDATE rollouts SET state = 'running', targeted = ?, updated_at = ? WHERE id = ?").run(n, at, row.id);
  enterStage(db, getRow(db, row.id)!, 0, at);
}

function act(db: Db, id: string, action: RolloutAction, by: string, product: string): Rollout {
  const row = getRow(db, id);
  if (!row) throw new NotFoundError(noRollout(id));
  if (!TRANSITIONS[action].from.includes(row.state)) throw new ConflictError(notAllowed(action, row));
  const at = now();
  let retried = 0;
  switch (action) {
    case "start":
      start(db, row, at);
      break;
    case "pause":
      sql(db, "UPDATE rollouts SET state = 'paused', paused_reason = ?, updated_at = ? WHERE id = ?")
        .run(manualPauseReason(by), at, id);
      break;
    case "resume":
      // Resuming continues the current stage: it never advances, even when that stage is complete (CONTRACT §13).
      busyWith(db, row);
      // Resuming accepts the failures seen so far: only new ones count against the threshold.
      sql(
        db,
        "UPDATE rollouts SET state = 'running', paused_reason = NULL, failed_accepted = failed, updated_at = ? WHERE id = ?",
      ).run(at, id);
      break;
    case "advance": {
      const stages = JSON.parse(row.stages) as number[];
      if (row.stage >= stages.length - 1) {
        sql(db, "UPDATE rollouts SET state = 'finished', updated_at = ? WHERE id = ?").run(at, id);
      } else enterStage(db, row, row.stage + 1, at);
      break;
    }
    case "cancel":
      sql(db, "UPDATE rollouts SET state = 'cancelled', paused_reason = NULL, updated_at = ? WHERE id = ?").run(at, id);
      break;
    case "retry": {
      // The failed devices are pending again: their failure no longer counts, against the threshold either.
      const { changes } = sql(
        db,
        `UPDATE rollout_devices SET state = NULL, progress = NULL, message = NULL, at = NULL
         WHERE rollout_id = ? AND state = 'failed'`,
      ).run(id);
      const n = Number(changes);
      if (n === 0) throw new ConflictError(nothingToRetry(row));
      sql(
        db,
        `UPDATE rollouts SET failed = failed - ?1, failed_accepted = max(0, failed_accepted - ?1), updated_at = ?2
         WHERE id = ?3`,
      ).run(n, at, id);
      retried = n;
      break;
    }
    case "promote": {
      if (firstMissingId(db, "firmwares", [row.firmware_id]) !== null) {
        throw new ConflictError(`Rollout ${row.name}: its firmware was deleted, so it cannot be promoted.`);
      }
      sql(db, "UPDATE device_types SET default_firmware = ?, revision = ? WHERE name = ?")
        .run(row.firmware_id, nextRevision(db), deviceTypeName(product));
      sql(db, "UPDATE rollouts SET updated_at = ? WHERE id = ?").run(at, id);
      break;
    }
  }
  const done = getRow(db, id)!;
  appendAudit(db, {
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
  if (action === "start" || action === "advance") settle(db, id, at, { action });
  else recordHistory(db, getRow(db, id)!, at);
  return rolloutFromRow(getRow(db, id)!);
}

export function sqliteRollouts(db: Db): RolloutStore {
  return promised<RolloutStore>({
    list: () =>
      (sql(db, `SELECT ${ROLLOUT_COLUMNS} FROM rollouts ORDER BY created_at DESC, id DESC`)
        .all() as unknown as RolloutRow[]).map(rolloutFromRow),
    get: (id) => {
      const row = getRow(db, id);
      return row ? rolloutFromRow(row) : null;
    },
    create: (input, by) =>
      transaction(db, () => {
        if (firstMissingId(db, "firmwares", [input.firmwareId]) !== null) {
          throw new InvalidError(noFirmwareField(input.firmwareId));
        }
        if (input.productTypeId !== null && firstMissingId(db, "product_types", [input.productTypeId]) !== null) {
          throw new InvalidError(noProductTypeField(input.productTypeId));
        }
        const id = newId();
        const at = now();
        sql(
          db,
          `INSERT INTO rollouts (id, name, firmware_id, product_type_id, stages, failure_threshold, auto_advance, state,
             created_at, updated_at, created_by)
           VALUES (?, ?, ?, ?, ?, ?, ?, 'draft', ?, ?, ?)`,
        ).run(
          id,
          input.name,
          input.firmwareId,
          input.productTypeId,
          JSON.stringify(input.stages ?? DEFAULT_STAGES),
          input.failureThreshold ?? DEFAULT_FAILURE_THRESHOLD,
          input.autoAdvance === false ? 0 : 1,
          at,
          at,
          by.email,
        );
        const row = getRow(db, id)!;
        appendAudit(db, {
          action: "rollout.create",
          target: rolloutTarget(row),
          details: {
            firmwareId: row.firmware_id,
            productTypeId: row.product_type_id,
            stages: JSON.parse(row.stages),
            failureThreshold: row.failure_threshold,
            autoAdvance: row.auto_advance === 1,
          },
        });
        return rolloutFromRow(row);
      }),
    act: (id, action, by, product) => transaction(db, () => act(db, id, action, by.email, product)),
    devices: (id, { state, page, rowsPerPage }) =>
      snapshot(db, () => {
        const row = getRow(db, id);
        if (!row) return null;
        const where = state === undefined ? "" : state === "pending" ? "AND state IS NULL" : "AND state = ?";
        const args: (string | number)[] = state === undefined || state === "pending" ? [] : [state];
        const { n } = sql(
          db,
          `SELECT COUNT(*) AS n FROM rollout_devices WHERE rollout_id = ? AND bucket < ? ${where}`,
        ).get(id, row.stage_percent, ...args) as { n: number };
        const data = sql(
          db,
          `SELECT device_id AS deviceId, state, progress, message, at FROM rollout_devices
           WHERE rollout_id = ? AND bucket < ? ${where} ORDER BY device_id LIMIT ? OFFSET ?`,
        ).all(id, row.stage_percent, ...args, rowsPerPage, page * rowsPerPage);
        return { data: data.map((d) => ({ ...d })) as never, total: n, page, per_page: rowsPerPage };
      }),
    history: (id) =>
      snapshot(db, () => {
        if (!getRow(db, id)) return null;
        return (sql(
          db,
          `SELECT at, stage, in_stage AS inStage, downloading, installing, installed, failed FROM rollout_history
           WHERE rollout_id = ? ORDER BY at`,
        ).all(id) as unknown as RolloutHistoryPoint[]).map((p) => ({ ...p }));
      }),
    stages: (id) =>
      snapshot(db, () => {
        const row = getRow(db, id);
        if (!row) return null;
        const r = rolloutFromRow(row);
        const args: (string | number)[] = [];
        const p = (v: string | number) => {
          args.push(v);
          return "?";
        };
        let groups: { k: number; state: string | null; n: number }[];
        if (r.state === "draft") {
          // No device rows yet: the devices a start would target now, by the same bucket rule.
          const k = stageIndexSql(r.stages, "bucket", p);
          const b = BUCKET(p(id));
          const scope = r.productTypeId === null ? "" : `AND d.product_type_id = ${p(r.productTypeId)}`;
          groups = sql(
            db,
            `SELECT ${k} AS k, NULL AS state, COUNT(*) AS n
             FROM (SELECT ${b} AS bucket FROM devices d WHERE d.firmware_id IS NULL ${scope}) GROUP BY 1`,
          ).all(...args) as never;
        } else {
          const k = stageIndexSql(r.stages, "bucket", p);
          groups = sql(
            db,
            `SELECT ${k} AS k, state, COUNT(*) AS n FROM rollout_devices WHERE rollout_id = ${p(id)} GROUP BY 1, 2`,
          ).all(...args) as never;
        }
        return stagesOf(r, groups);
      }),
    targets: (productTypeId) => {
      const row = productTypeId === null
        ? sql(db, "SELECT COUNT(*) AS n FROM devices WHERE firmware_id IS NULL").get()
        : sql(db, "SELECT COUNT(*) AS n FROM devices WHERE firmware_id IS NULL AND product_type_id = ?").get(
          productTypeId,
        );
      return (row as { n: number }).n;
    },
  });
}
