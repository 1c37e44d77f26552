/**
 * Staged rollouts (docs/REQUIREMENTS.md §13); the rules are rules/rollouts.ts. Operator actions take the write lock like every
 * checking write. On PostgreSQL status reports do not (they would queue behind every other write): each locks its
 * device row, then its rollout's row before it moves the counts and settles, so reports of one rollout are serialized
 * on that row across every replica and a stage advances once, whichever replica receives the report. On SQLite every
 * report is one write transaction of the one writer.
 */
import { refreshDeviceKeys } from "./firmware_keys.ts";
import { requireReleasable, SIGNATURE_COLUMNS, SIGNATURE_JOIN, signatureOf, type SignatureRow } from "./firmwares.ts";
import type { FirmwareSignature } from "../../../shared/schemas/firmware.ts";
import { deviceTypeName } from "../../../shared/schemas/device_type.ts";
import type { UpdateState } from "../../../shared/schemas/device.ts";
import type { RolloutAction, RolloutHistoryPoint } from "../../../shared/schemas/rollout.ts";
import { DEFAULT_FAILURE_THRESHOLD, DEFAULT_STAGES } from "../../../shared/schemas/rollout.ts";
import type { Rollout } from "../../../shared/schemas/rollout.ts";
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
import type { RolloutStore } from "../types/rollouts.ts";
import {
  all,
  dialect,
  type Engine,
  firstMissingId,
  nextRevision,
  one,
  type Param,
  type Q,
  read,
  run,
  storeOf,
  write,
  writeRetried,
} from "../runner.ts";
import { appendAudit } from "./audit.ts";
import { jsonField, same } from "./dialect_sql.ts";
import { runAs, SYSTEM_ACTOR } from "../audit_context.ts";

const inList = (states: readonly string[]) => states.map((s) => `'${s}'`).join(", ");

function* getRow(id: string, lock = false): Q<RolloutRow | null> {
  const d = yield* dialect();
  return (yield* one<RolloutRow>(
    `SELECT ${ROLLOUT_COLUMNS} FROM rollouts WHERE id = ?${lock ? d.forUpdate : ""}`,
    id,
  )) ??
    null;
}

/** The firmware a rollout offers a device, with the rollout: see device_api.ts resolveFirmware. */
export interface OfferedFirmware {
  rolloutId: string;
  firmware: { _id: string; name: string; size: number; sha256: string; signature: FirmwareSignature | null };
}

/**
 * The rollout that decides a device's firmware (docs/REQUIREMENTS.md §13): the newest running, paused or finished rollout of its
 * scope whose current stage holds it, or a cancelled one it installed; null when none does (its custom firmware, which
 * wins over any rollout, is the caller's to check first). A rollout whose firmware was deleted offers nothing.
 */
export function* offeredByRollout(deviceId: string, productTypeId: string | null): Q<OfferedFirmware | null> {
  const d = yield* dialect();
  const rows = yield* all<
    {
      id: string;
      stages: string;
      stage: number;
      state: string;
      f_id: string;
      f_name: string;
      f_size: number;
      f_sha256: string;
    } & SignatureRow
  >(
    `SELECT r.id, r.stages, r.stage, r.state, f.id AS f_id, f.name AS f_name, f.size AS f_size, f.sha256 AS f_sha256,
       ${SIGNATURE_COLUMNS}
     FROM rollouts r JOIN firmwares f ON f.id = r.firmware_id ${SIGNATURE_JOIN}
     WHERE r.state IN (${inList([...OFFERING_STATES, "cancelled"])})
       AND (r.product_type_id IS NULL OR r.product_type_id = ?)
     ORDER BY r.${d.tieBreak("rollouts")} DESC`,
    productTypeId,
  );
  for (const r of rows) {
    const holds = r.state === "cancelled"
      ? (yield* one(
        "SELECT 1 AS one FROM rollout_devices WHERE rollout_id = ? AND device_id = ? AND state = 'installed'",
        r.id,
        deviceId,
      )) !== undefined
      : bucket(r.id, deviceId) < stagePercent(JSON.parse(r.stages), Number(r.stage));
    if (holds) {
      return {
        rolloutId: r.id,
        firmware: {
          _id: r.f_id,
          name: r.f_name,
          size: Number(r.f_size),
          sha256: r.f_sha256,
          signature: signatureOf(r),
        },
      };
    }
  }
  return null;
}

/**
 * offeredByRollout's dependence on the device's own rows, as a condition on a device row `d`: unpinned and part of a
 * rollout of its scope that may offer it firmware (running, paused or finished: by its bucket; cancelled: when it
 * installed there). A device that is quiet (no ROLLOUT_TO_JOIN) and does not meet it is offered nothing by a rollout.
 */
export const IN_OFFERING_ROLLOUT = `d.firmware_id IS NULL AND EXISTS (SELECT 1 FROM rollout_devices rd
  JOIN rollouts r ON r.id = rd.rollout_id
  WHERE rd.device_id = d.device_id AND (r.product_type_id IS NULL OR r.product_type_id = d.product_type_id)
    AND (r.state IN (${inList(OFFERING_STATES)}) OR (r.state = 'cancelled' AND rd.state = 'installed')))`;

/** The condition "rollout r is one the device (row d) joins at its check-in": see joinRollouts. */
export const ROLLOUT_TO_JOIN = `d.firmware_id IS NULL AND r.state IN (${inList(OFFERING_STATES)})
  AND (r.product_type_id IS NULL OR r.product_type_id = d.product_type_id)
  AND NOT EXISTS (SELECT 1 FROM rollout_devices rd WHERE rd.rollout_id = r.id AND rd.device_id = d.device_id)`;

/**
 * A device that checked in joins the running, paused or finished rollouts of its scope it is not part of yet (a
 * device that appeared after the start, or changed product type): by the same bucket rule, counted at once. One read
 * (usually finding nothing to join); on PostgreSQL one statement per rollout inserts the device's row and counts it
 * atomically, so it needs no transaction around it.
 */
export function* joinRollouts(deviceId: string): Q<void> {
  const d = yield* dialect();
  const rollouts = yield* all<{ id: string; stage_percent: number }>(
    `SELECT r.id, r.stage_percent FROM rollouts r JOIN devices d ON d.device_id = ? WHERE ${ROLLOUT_TO_JOIN}`,
    deviceId,
  );
  for (const r of rollouts) {
    const b = bucket(r.id, deviceId);
    let joined: boolean;
    if (d.writableCte) {
      const row = yield* one<{ n: number }>(
        `WITH ins AS (
           INSERT INTO rollout_devices (rollout_id, device_id, bucket) VALUES (?, ?, ?)
           ON CONFLICT DO NOTHING RETURNING bucket
         )
         UPDATE rollouts SET targeted = targeted + (SELECT count(*) FROM ins),
           in_stage = in_stage + (SELECT count(*) FROM ins WHERE ins.bucket < rollouts.stage_percent)
         WHERE id = ? RETURNING (SELECT count(*) FROM ins WHERE ins.bucket < rollouts.stage_percent) AS n`,
        r.id,
        deviceId,
        b,
        r.id,
      );
      joined = row !== undefined && Number(row.n) > 0;
    } else {
      yield* run("INSERT INTO rollout_devices (rollout_id, device_id, bucket) VALUES (?, ?, ?)", r.id, deviceId, b);
      joined = b < r.stage_percent;
      yield* run(
        "UPDATE rollouts SET targeted = targeted + 1, in_stage = in_stage + ? WHERE id = ?",
        joined ? 1 : 0,
        r.id,
      );
    }
    if (joined) yield* adoptRunning(r.id, deviceId);
  }
}

/**
 * The devices of a rollout's current stage without a report in it that already run its firmware (their latest report
 * says installed, of this firmware: e.g. it was the default) are counted installed at once, so the stage never waits
 * for a report that will not come. Only `deviceId` when given. Answers how many.
 */
export function* adoptRunning(rolloutId: string, deviceId?: string): Q<number> {
  const d = yield* dialect();
  const field = (f: string) => jsonField(d, "d.update_status", f);
  const args: Param[] = [ALREADY_RUNNING, rolloutId, ...(deviceId === undefined ? [] : [deviceId])];
  const adopt = `UPDATE rollout_devices AS rd SET state = 'installed', progress = NULL, message = ?,
       at = ${field("at")}
     FROM rollouts r, devices d
     WHERE rd.rollout_id = ? ${deviceId === undefined ? "" : "AND rd.device_id = ?"} AND r.id = rd.rollout_id
       AND rd.bucket < r.stage_percent AND rd.state IS NULL AND d.device_id = rd.device_id
       AND ${field("state")} = 'installed' AND ${field("firmwareId")} = r.firmware_id`;
  if (d.writableCte) {
    const row = yield* one<{ n: number }>(
      `WITH a AS (${adopt} RETURNING 1)
       UPDATE rollouts SET installed = installed + (SELECT count(*) FROM a) WHERE id = ?
       RETURNING (SELECT count(*) FROM a) AS n`,
      ...args,
      rolloutId,
    );
    return Number(row?.n ?? 0);
  }
  const n = yield* run(adopt, ...args);
  if (n > 0) yield* run("UPDATE rollouts SET installed = installed + ? WHERE id = ?", n, rolloutId);
  return n;
}

const HISTORY_UPSERT = `ON CONFLICT (rollout_id, at) DO UPDATE SET stage = excluded.stage, in_stage = excluded.in_stage,
       downloading = excluded.downloading, installing = excluded.installing, installed = excluded.installed,
       failed = excluded.failed`;

function* recordHistory(r: RolloutRow, at: string): Q<void> {
  yield* run(
    `INSERT INTO rollout_history (rollout_id, at, stage, in_stage, downloading, installing, installed, failed)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) ${HISTORY_UPSERT}`,
    r.id,
    historyMinute(at),
    r.stage,
    r.in_stage,
    r.downloading,
    r.installing,
    r.installed,
    r.failed,
  );
}

/** Moves a rollout to a stage: its percentage and the count of devices it now holds; a stage is entered once. */
function* enterStage(r: RolloutRow, stage: number, at: string): Q<void> {
  const percent = stagePercent(JSON.parse(r.stages), stage);
  const { n } = (yield* one<{ n: number }>(
    "SELECT count(*) AS n FROM rollout_devices WHERE rollout_id = ? AND bucket < ?",
    r.id,
    percent,
  ))!;
  // Conditional on the stage it left: a stage is entered once, whoever asks.
  const entered = yield* run(
    "UPDATE rollouts SET stage = ?, stage_percent = ?, in_stage = ?, updated_at = ? WHERE id = ? AND stage = ?",
    stage,
    percent,
    Number(n),
    at,
    r.id,
    r.stage,
  );
  if (entered > 0) yield* adoptRunning(r.id);
}

const SYSTEM_CONTEXT = { actor: SYSTEM_ACTOR, ip: null };

/** `q` with each of its steps run as the system (the audit entries it appends are the system's). */
function* asSystem<T>(q: Q<T>): Q<T> {
  let input: unknown = undefined;
  let failed = false;
  for (;;) {
    const step = runAs(SYSTEM_CONTEXT, () => failed ? q.throw(input) : q.next(input));
    if (step.done) return step.value;
    try {
      input = yield step.value;
      failed = false;
    } catch (err) {
      input = err;
      failed = true;
    }
  }
}

/** An automatic step in the audit trail: the system's, with what led to it. */
function* auditAuto(action: "rollout.auto_advance" | "rollout.auto_pause", id: string, details: object): Q<void> {
  const row = (yield* getRow(id))!;
  yield* asSystem(appendAudit({ action, target: rolloutTarget(row), details: rolloutDetails(row, { ...details }) }));
}

/**
 * Lets a running rollout pause, advance or finish as its counts say (rules/rollouts.ts nextStep), repeatedly: a stage
 * that holds no device or whose devices all reported already advances at once. Runs inside the caller's transaction
 * (which holds the rollout's row); each step is in the audit trail with `cause` (the report or the operator action
 * after which it was taken).
 */
export function* settle(id: string, at: string, cause: Record<string, unknown>): Q<void> {
  for (let guard = 0; guard < 100; guard++) {
    const row = (yield* getRow(id, true))!;
    const r = rolloutFromRow(row);
    const step = nextStep(r, row);
    if (step === null) break;
    if (step === "pause") {
      yield* run(
        "UPDATE rollouts SET state = 'paused', paused_reason = ?, updated_at = ? WHERE id = ? AND state = 'running'",
        autoPauseReason(r.stage, row, r.failureThreshold),
        at,
        id,
      );
      yield* auditAuto("rollout.auto_pause", id, { after: cause });
      break;
    }
    if (step === "finish") {
      yield* run("UPDATE rollouts SET state = 'finished', updated_at = ? WHERE id = ? AND state = 'running'", at, id);
      yield* auditAuto("rollout.auto_advance", id, { after: cause, fromStage: r.stage, finished: true });
      break;
    }
    yield* enterStage(row, r.stage + 1, at);
    yield* auditAuto("rollout.auto_advance", id, { after: cause, fromStage: r.stage });
  }
  yield* recordHistory((yield* getRow(id))!, at);
}

/**
 * A device's report counted in the rollout that offered it the firmware: its row (joined now if it had none), the
 * state counts moved from its previous state to this one, the device's `update_status` set to `updateJson`, then the
 * rollout settles. The caller holds the device's row (so its previous state is read safely). On PostgreSQL the hot rows
 * (the rollout's, and the devices change counter the devices trigger moves) are locked by ONE statement just before
 * the commit, so reports of one rollout queue for the length of that statement, not of the whole transaction.
 */
export function* recordInRollout(
  rolloutId: string,
  deviceId: string,
  report: { state: UpdateState; progress: number | null; message: string | null },
  at: string,
  updateJson: string,
): Q<void> {
  const d = yield* dialect();
  if (!d.writableCte) {
    yield* run("UPDATE devices SET update_status = ? WHERE device_id = ?", updateJson, deviceId);
    const prev = yield* one<{ state: UpdateState | null }>(
      "SELECT state FROM rollout_devices WHERE rollout_id = ? AND device_id = ?",
      rolloutId,
      deviceId,
    );
    if (!prev) {
      const b = bucket(rolloutId, deviceId);
      yield* run(
        "INSERT INTO rollout_devices (rollout_id, device_id, bucket) VALUES (?, ?, ?)",
        rolloutId,
        deviceId,
        b,
      );
      yield* run(
        "UPDATE rollouts SET targeted = targeted + 1, in_stage = in_stage + (? < stage_percent) WHERE id = ?",
        b,
        rolloutId,
      );
    }
    yield* run(
      "UPDATE rollout_devices SET state = ?, progress = ?, message = ?, at = ? WHERE rollout_id = ? AND device_id = ?",
      report.state,
      report.progress,
      report.message,
      at,
      rolloutId,
      deviceId,
    );
    const before = prev?.state ?? null;
    if (before !== report.state) {
      const dec = before ? `${COUNT_COLUMN[before]} = ${COUNT_COLUMN[before]} - 1, ` : "";
      const col = COUNT_COLUMN[report.state];
      yield* run(`UPDATE rollouts SET ${dec}${col} = ${col} + 1, updated_at = ? WHERE id = ?`, at, rolloutId);
    }
    // A cancelled rollout holds the devices that installed it: a report for it may change that.
    if ((yield* one<{ state: string }>("SELECT state FROM rollouts WHERE id = ?", rolloutId))!.state === "cancelled") {
      yield* refreshDeviceKeys("d.device_id = ?", [deviceId]);
    }
    yield* settle(rolloutId, at, { report: { deviceId, state: report.state } });
    return;
  }
  const b = bucket(rolloutId, deviceId);
  const { existed, before } = (yield* one<{ existed: boolean; before: UpdateState | null }>(
    `WITH prev AS (
      SELECT state FROM rollout_devices WHERE rollout_id = ? AND device_id = ?
    ), up AS (
      INSERT INTO rollout_devices (rollout_id, device_id, bucket, state, progress, message, at)
      VALUES (?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (rollout_id, device_id) DO UPDATE SET state = excluded.state, progress = excluded.progress,
        message = excluded.message, at = excluded.at
      RETURNING 1
    )
    SELECT EXISTS (SELECT 1 FROM prev) AS existed, (SELECT state FROM prev) AS before, (SELECT count(*) FROM up) AS n`,
    rolloutId,
    deviceId,
    rolloutId,
    deviceId,
    b,
    report.state,
    report.progress,
    report.message,
    at,
  ))!;
  const prev = before ?? null;
  if (existed && prev === report.state) {
    // Nothing to count: the counts, and so the rollout's next step, stay as they are.
    yield* run("UPDATE devices SET update_status = ? WHERE device_id = ?", updateJson, deviceId);
    return;
  }
  const sets = ["updated_at = ?"];
  const setArgs: Param[] = [at];
  if (!existed) {
    sets.push("targeted = targeted + 1", "in_stage = in_stage + (?::float8 < stage_percent)::int");
    setArgs.push(b);
  }
  if (prev) sets.push(`${COUNT_COLUMN[prev]} = ${COUNT_COLUMN[prev]} - 1`);
  sets.push(`${COUNT_COLUMN[report.state]} = ${COUNT_COLUMN[report.state]} + 1`);
  const row = (yield* one<RolloutRow>(
    `WITH r AS (
       UPDATE rollouts SET ${sets.join(", ")} WHERE id = ? RETURNING ${ROLLOUT_COLUMNS}
     ), h AS (
       INSERT INTO rollout_history (rollout_id, at, stage, in_stage, downloading, installing, installed, failed)
       SELECT id, ?, stage, in_stage, downloading, installing, installed, failed FROM r ${HISTORY_UPSERT}
     ), d AS (
       UPDATE devices SET update_status = ? WHERE device_id = ?
     )
     SELECT * FROM r`,
    ...setArgs,
    rolloutId,
    historyMinute(at),
    updateJson,
    deviceId,
  ))!;
  // A cancelled rollout holds the devices that installed it: a report for it may change that.
  if (row.state === "cancelled") yield* refreshDeviceKeys("d.device_id = ?", [deviceId]);
  if (nextStep(rolloutFromRow(row), row) !== null) {
    yield* settle(rolloutId, at, { report: { deviceId, state: report.state } });
  }
}

function* busyWith(r: RolloutRow): Q<void> {
  const d = yield* dialect();
  const other = yield* one<{ name: string }>(
    `SELECT name FROM rollouts WHERE id != ? AND state IN (${inList(ACTIVE_STATES)})
     AND ${same(d, "product_type_id", "?")} LIMIT 1`,
    r.id,
    r.product_type_id,
  );
  if (!other) return;
  const pt = r.product_type_id
    ? (yield* one<{ name: string }>("SELECT name FROM product_types WHERE id = ?", r.product_type_id))?.name ??
      r.product_type_id
    : null;
  throw new ConflictError(scopeBusy(pt, other.name));
}

const JOIN_CHUNK = 5000;

function* start(row: RolloutRow, at: string): Q<void> {
  const d = yield* dialect();
  yield* busyWith(row);
  const ids =
    (row.product_type_id === null
      ? yield* all<{ device_id: string }>("SELECT device_id FROM devices WHERE firmware_id IS NULL")
      : yield* all<{ device_id: string }>(
        "SELECT device_id FROM devices WHERE firmware_id IS NULL AND product_type_id = ?",
        row.product_type_id,
      )).map((r) => r.device_id);
  for (let i = 0; i < ids.length; i += JOIN_CHUNK) {
    const chunk = ids.slice(i, i + JOIN_CHUNK);
    if (d.engine === "sqlite") {
      // The engine's rollout_bucket() is rules/rollouts.ts's bucket().
      yield* run(
        `INSERT OR IGNORE INTO rollout_devices (rollout_id, device_id, bucket)
         SELECT ?, value, rollout_bucket(?, value) FROM json_each(?)`,
        row.id,
        row.id,
        d.list(chunk),
      );
    } else {
      yield* run(
        `INSERT INTO rollout_devices (rollout_id, device_id, bucket)
         SELECT ?, d, b FROM unnest(?::text[], ?::float8[]) AS u(d, b) ON CONFLICT DO NOTHING`,
        row.id,
        chunk,
        chunk.map((id) => String(bucket(row.id, id))),
      );
    }
  }
  const { n } = (yield* one<{ n: number }>("SELECT count(*) AS n FROM rollout_devices WHERE rollout_id = ?", row.id))!;
  yield* run("UPDATE rollouts SET state = 'running', targeted = ?, updated_at = ? WHERE id = ?", Number(n), at, row.id);
  yield* enterStage((yield* getRow(row.id))!, 0, at);
}

function* act(id: string, action: RolloutAction, by: string, product: string): Q<Rollout> {
  const row = yield* getRow(id, true);
  if (!row) throw new NotFoundError(noRollout(id));
  if (!TRANSITIONS[action].from.includes(row.state)) throw new ConflictError(notAllowed(action, row));
  const at = now();
  let retried = 0;
  switch (action) {
    case "start":
      yield* requireReleasable(row.firmware_id, "be rolled out");
      yield* start(row, at);
      break;
    case "pause":
      yield* run(
        "UPDATE rollouts SET state = 'paused', paused_reason = ?, updated_at = ? WHERE id = ?",
        manualPauseReason(by),
        at,
        id,
      );
      break;
    case "resume":
      // Resuming continues the current stage: it never advances, even when that stage is complete (docs/REQUIREMENTS.md §13).
      yield* busyWith(row);
      // Resuming accepts the failures seen so far: only new ones count against the threshold.
      yield* run(
        "UPDATE rollouts SET state = 'running', paused_reason = NULL, failed_accepted = failed, updated_at = ? WHERE id = ?",
        at,
        id,
      );
      break;
    case "advance": {
      const stages = JSON.parse(row.stages) as number[];
      if (row.stage >= stages.length - 1) {
        yield* run("UPDATE rollouts SET state = 'finished', updated_at = ? WHERE id = ?", at, id);
      } else yield* enterStage(row, row.stage + 1, at);
      break;
    }
    case "cancel":
      yield* run("UPDATE rollouts SET state = 'cancelled', paused_reason = NULL, updated_at = ? WHERE id = ?", at, id);
      break;
    case "retry": {
      // The failed devices are pending again: their failure no longer counts, against the threshold either.
      const n = yield* run(
        `UPDATE rollout_devices SET state = NULL, progress = NULL, message = NULL, at = NULL
         WHERE rollout_id = ? AND state = 'failed'`,
        id,
      );
      if (n === 0) throw new ConflictError(nothingToRetry(row));
      yield* run(
        `UPDATE rollouts SET failed = failed - ?, failed_accepted = CASE WHEN failed_accepted > ? THEN failed_accepted - ? ELSE 0 END,
           updated_at = ? WHERE id = ?`,
        n,
        n,
        n,
        at,
        id,
      );
      retried = n;
      break;
    }
    case "promote": {
      if ((yield* firstMissingId("firmwares", [row.firmware_id])) !== null) {
        throw new ConflictError(`Rollout ${row.name}: its firmware was deleted, so it cannot be promoted.`);
      }
      yield* run(
        "UPDATE device_types SET default_firmware = ?, revision = ? WHERE name = ?",
        row.firmware_id,
        yield* nextRevision(),
        deviceTypeName(product),
      );
      yield* run("UPDATE rollouts SET updated_at = ? WHERE id = ?", at, id);
      break;
    }
  }
  const done = (yield* getRow(id))!;
  yield* appendAudit({
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
  if (action === "start" || action === "advance") yield* settle(id, at, { action });
  else yield* recordHistory((yield* getRow(id))!, at);
  return rolloutFromRow((yield* getRow(id))!);
}

export function rolloutStore(engine: Engine): RolloutStore {
  return storeOf<RolloutStore>(engine, {
    *list() {
      const d = yield* dialect();
      return (yield* all<RolloutRow>(`SELECT ${ROLLOUT_COLUMNS} FROM rollouts ORDER BY ${d.tieBreak("rollouts")} DESC`))
        .map(rolloutFromRow);
    },
    *get(id) {
      const row = yield* getRow(id);
      return row ? rolloutFromRow(row) : null;
    },
    create: (input, by) =>
      write(function* () {
        if ((yield* firstMissingId("firmwares", [input.firmwareId])) !== null) {
          throw new InvalidError(noFirmwareField(input.firmwareId));
        }
        yield* requireReleasable(input.firmwareId, "be rolled out");
        if (input.productTypeId !== null && (yield* firstMissingId("product_types", [input.productTypeId])) !== null) {
          throw new InvalidError(noProductTypeField(input.productTypeId));
        }
        const id = newId();
        const at = now();
        yield* run(
          `INSERT INTO rollouts (id, name, firmware_id, product_type_id, stages, failure_threshold, auto_advance, state,
             created_at, updated_at, created_by)
           VALUES (?, ?, ?, ?, ?, ?, (? = 1), 'draft', ?, ?, ?)`,
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
        const row = (yield* getRow(id))!;
        yield* appendAudit({
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
    // Retried on a deadlock (PostgreSQL): an action that moves device rows (retry, a stage entered that counts devices
    // already running the firmware) holds the rollout's row first, a report holds its device row first.
    act: (id, action, by, product) => writeRetried(() => act(id, action, by.email, product)),
    devices: (id, { state, page, rowsPerPage }) =>
      read(function* () {
        const row = yield* getRow(id);
        if (!row) return null;
        const where = state === undefined ? "" : state === "pending" ? "AND state IS NULL" : "AND state = ?";
        const args: Param[] = [
          id,
          Number(row.stage_percent),
          ...(state === undefined || state === "pending" ? [] : [state]),
        ];
        const { n } = (yield* one<{ n: number }>(
          `SELECT count(*) AS n FROM rollout_devices WHERE rollout_id = ? AND bucket < ? ${where}`,
          ...args,
        ))!;
        const data = yield* all<{
          deviceId: string;
          state: UpdateState | null;
          progress: number | null;
          message: string | null;
          at: string | null;
        }>(
          `SELECT device_id AS "deviceId", state, progress, message, at FROM rollout_devices
           WHERE rollout_id = ? AND bucket < ? ${where} ORDER BY device_id LIMIT ? OFFSET ?`,
          ...args,
          rowsPerPage,
          page * rowsPerPage,
        );
        return {
          data: data.map((r) => ({
            deviceId: r.deviceId,
            state: r.state,
            progress: r.progress,
            message: r.message,
            at: r.at,
          })),
          total: Number(n),
          page,
          per_page: rowsPerPage,
        };
      }),
    history: (id) =>
      read(function* () {
        if (!(yield* getRow(id))) return null;
        const rows = yield* all<Record<string, number | string>>(
          `SELECT at, stage, in_stage, downloading, installing, installed, failed FROM rollout_history
           WHERE rollout_id = ? ORDER BY at`,
          id,
        );
        return rows.map((p): RolloutHistoryPoint => ({
          at: p.at as string,
          stage: Number(p.stage),
          inStage: Number(p.in_stage),
          downloading: Number(p.downloading),
          installing: Number(p.installing),
          installed: Number(p.installed),
          failed: Number(p.failed),
        }));
      }),
    stages: (id) =>
      read(function* () {
        const d = yield* dialect();
        const row = yield* getRow(id);
        if (!row) return null;
        const r = rolloutFromRow(row);
        const args: Param[] = [];
        const p = (v: string | number) => {
          args.push(v);
          return "?";
        };
        let rows: { k: number; state: string | null; n: number }[];
        if (r.state === "draft") {
          // No device rows yet: the devices a start would target now, by the same bucket rule.
          const k = stageIndexSql(r.stages, "x.bucket", p);
          const b = d.bucket(`CAST(${p(id)} AS TEXT)`);
          const scope = r.productTypeId === null ? "" : `AND d.product_type_id = ${p(r.productTypeId)}`;
          rows = yield* all(
            `SELECT ${k} AS k, NULL AS state, count(*) AS n
             FROM (SELECT ${b} AS bucket FROM devices d WHERE d.firmware_id IS NULL ${scope}) x GROUP BY 1`,
            ...args,
          );
        } else {
          const k = stageIndexSql(r.stages, "bucket", p);
          rows = yield* all(
            `SELECT ${k} AS k, state, count(*) AS n FROM rollout_devices WHERE rollout_id = ${p(id)} GROUP BY 1, 2`,
            ...args,
          );
        }
        return stagesOf(r, rows.map((g) => ({ k: Number(g.k), state: g.state ?? null, n: Number(g.n) })));
      }),
    *targets(productTypeId) {
      const row = productTypeId === null
        ? yield* one<{ n: number }>("SELECT count(*) AS n FROM devices WHERE firmware_id IS NULL")
        : yield* one<{ n: number }>(
          "SELECT count(*) AS n FROM devices WHERE firmware_id IS NULL AND product_type_id = ?",
          productTypeId,
        );
      return Number(row!.n);
    },
  });
}
