/**
 * hawkBit DDI's part of the device API (docs/REQUIREMENTS.md §18), on the same check-in, firmware resolution and status
 * recording as §6 (device_api.ts): a poll is a check-in, feedback is a status report.
 */
import type { DeviceAttributes } from "../../../shared/schemas/ddi.ts";
import type { DeviceUpdate, UpdateState } from "../../../shared/schemas/device.ts";
import { now } from "../clock.ts";
import { NotFoundError } from "../errors.ts";
import { type DdiActionState, ddiReportOf, endsWithdrawal } from "../rules/ddi.ts";
import { deviceTarget, noDevice } from "../rules/devices.ts";
import { unknownDevice } from "../rules/rollouts.ts";
import { dialect, type Methods, nextRevision, one, type Q, read, run, unlocked } from "../runner.ts";
import type { DdiAction, DdiPollResult, DdiStore } from "../types/ddi.ts";
import { appendAudit } from "./audit.ts";
import {
  checkin,
  deviceKeys,
  type QuietAnswers,
  quietOrLoud,
  recordCheckin,
  recordKnownCheckin,
  recordStatus,
  resolveFirmware,
} from "./device_api.ts";
import type { SeenBatch } from "../last_seen.ts";
import { AnswerCache } from "../answer_cache.ts";
import { forNoKeyUpdate } from "./dialect_sql.ts";
import { SIGNATURE_COLUMNS, SIGNATURE_JOIN, signatureOf, type SignatureRow } from "./firmwares.ts";

const FINAL: readonly UpdateState[] = ["installed", "failed"];
const CURRENT = "state IN ('open', 'canceling')";

interface PollRow {
  device_id: string;
  product_type_id: string | null;
  firmware_id: string | null;
  update_status: string | null;
  no_attributes: number | boolean;
}

interface ActionRow {
  id: number;
  firmware_id: string;
  state: DdiActionState;
}

const noAction = (deviceId: string, actionId: number) =>
  new NotFoundError(`Device ${deviceId} has no action ${actionId}.`);

/**
 * Whether the device already has a final report (installed or failed) of `firmwareId` where it counts: in the rollout
 * that offers it (a retried device is pending there again, so it gets a new action), else its latest report.
 */
function* reportedFinal(
  deviceId: string,
  firmwareId: string,
  rolloutId: string | null,
  updateStatus: string | null,
): Q<boolean> {
  if (rolloutId !== null) {
    const rd = yield* one<{ state: UpdateState | null }>(
      "SELECT state FROM rollout_devices WHERE rollout_id = ? AND device_id = ?",
      rolloutId,
      deviceId,
    );
    if (rd) return rd.state !== null && FINAL.includes(rd.state);
  }
  if (updateStatus === null) return false;
  const update = JSON.parse(updateStatus) as DeviceUpdate;
  return update.firmwareId === firmwareId && FINAL.includes(update.state);
}

/**
 * The poll's transaction (inside §6's check-in wrapper). Locks are taken in the order feedback and §6's status take
 * them: the device's row first (PostgreSQL; SQLite serializes writes anyway), then its action; the check-in's own write
 * (whose triggers hold the devices change counter until the commit) comes last, as in §6's check-in, except for a device
 * the poll registers, whose row must exist before its first action.
 */
function* poll(deviceId: string, product: string, register: boolean): Q<DdiPollResult> {
  return (yield* pollOf(deviceId, product, register, null))!;
}

/**
 * The poll; given the device's row as quietDevice read it (quietOrLoud in device_api.ts): read only (no lock, no
 * write), null when the poll must write (an action to open or withdraw).
 */
function* pollOf(
  deviceId: string,
  product: string,
  register: boolean,
  quietDevice: PollRow | null,
): Q<DdiPollResult | null> {
  const quiet = quietDevice !== null;
  const device = quietDevice ?? (yield* one<PollRow>(
    `SELECT device_id, product_type_id, firmware_id, update_status, attributes IS NULL AS no_attributes
     FROM devices WHERE device_id = ?${forNoKeyUpdate(yield* dialect())}`,
    deviceId,
  ));
  if (!device && !register) throw new NotFoundError(noDevice(deviceId));
  // The check-in's own write, as §6's check-in makes it.
  const checkinWrite = () => register ? recordCheckin(deviceId, null) : recordKnownCheckin(deviceId, null);
  if (!device) yield* checkinWrite();
  const { rolloutId, firmware } = yield* resolveFirmware(
    device ?? { device_id: deviceId, product_type_id: null, firmware_id: null },
    product,
  );
  const current = device
    ? yield* one<ActionRow>(
      `SELECT id, firmware_id, state FROM ddi_actions WHERE device_id = ? AND ${CURRENT}`,
      deviceId,
    )
    : undefined;
  const result: DdiPollResult = {
    deploymentBase: null,
    cancelAction: null,
    attributesWanted: device ? Boolean(device.no_attributes) : true,
  };
  if (current?.state === "canceling") {
    result.cancelAction = Number(current.id);
  } else if (current) {
    if (current.firmware_id === firmware?._id) result.deploymentBase = Number(current.id);
    else {
      // A pin changed, or a rollout was cancelled: the action is withdrawn until the device acknowledges.
      if (quiet) return null;
      yield* run("UPDATE ddi_actions SET state = 'canceling', updated_at = ? WHERE id = ?", now(), current.id);
      result.cancelAction = Number(current.id);
    }
  } else if (
    firmware && !(yield* reportedFinal(deviceId, firmware._id, rolloutId, device?.update_status ?? null))
  ) {
    if (quiet) return null;
    result.deploymentBase = yield* openAction(deviceId, firmware._id);
  }
  if (device && !quiet) yield* checkinWrite();
  return result;
}

/** Opens the device's action for `firmwareId`; a concurrent poll's action is taken if it won (one current per device). */
function* openAction(deviceId: string, firmwareId: string): Q<number> {
  const at = now();
  const inserted = yield* one<{ id: number }>(
    `INSERT INTO ddi_actions (device_id, firmware_id, state, created_at, updated_at) VALUES (?, ?, 'open', ?, ?)
     ON CONFLICT DO NOTHING RETURNING id`,
    deviceId,
    firmwareId,
    at,
    at,
  );
  if (inserted) return Number(inserted.id);
  const current = yield* one<{ id: number }>(
    `SELECT id FROM ddi_actions WHERE device_id = ? AND ${CURRENT}`,
    deviceId,
  );
  return Number(current!.id);
}

function* action(deviceId: string, actionId: number): Q<DdiAction | null> {
  const row = yield* one<
    SignatureRow & {
      id: number;
      state: DdiActionState;
      f_id: string;
      f_name: string;
      f_size: number;
      sha256: string;
      sha1: string | null;
      md5: string | null;
    }
  >(
    `SELECT a.id, a.state, f.id AS f_id, f.name AS f_name, f.size AS f_size, f.sha256, f.sha1, f.md5, ${SIGNATURE_COLUMNS}
     FROM ddi_actions a JOIN firmwares f ON f.id = a.firmware_id ${SIGNATURE_JOIN}
     WHERE a.id = ? AND a.device_id = ?`,
    actionId,
    deviceId,
  );
  if (!row) return null;
  return {
    id: Number(row.id),
    state: row.state,
    firmware: {
      _id: row.f_id,
      name: row.f_name,
      size: Number(row.f_size),
      sha256: row.sha256,
      sha1: row.sha1,
      md5: row.md5,
      signature: signatureOf(row),
    },
  };
}

/** The attributes as stored: names in order, so the same set is the same text. */
const attributesJson = (a: DeviceAttributes) => JSON.stringify(Object.fromEntries(Object.entries(a).sort()));

/** The names whose values changed, as the audit trail shows changes: each value before and after (null: absent). */
function attributeChanges(before: DeviceAttributes, after: DeviceAttributes) {
  const was: Record<string, string | null> = {};
  const changes: Record<string, string | null> = {};
  for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const from = before[name] ?? null;
    const to = after[name] ?? null;
    if (from === to) continue;
    was[name] = from;
    changes[name] = to;
  }
  return { before: was, changes };
}

/** The firmware of the device's latest report when that report is final (installed or failed), else null. */
function finalReportOf(updateStatus: string | null): string | null {
  if (updateStatus === null) return null;
  const update = JSON.parse(updateStatus) as DeviceUpdate;
  return FINAL.includes(update.state) ? update.firmwareId : null;
}

/**
 * A quiet poll's answer reads of the device its product type, pin, whether its latest report is final and of which
 * firmware (reportedFinal), whether it sent its attributes, and its current action and the rollouts it is part of;
 * without the last two it is the same for every device that reads the same (it holds no id of the device's: the
 * links are made by the route).
 */
export const pollAnswers = (): QuietAnswers<DdiPollResult> => ({
  cache: new AnswerCache<DdiPollResult>(),
  shared: (d) =>
    d.has_action || d.in_rollout
      ? null
      : [d.product_type_id, d.firmware_id, finalReportOf(d.update_status), Boolean(d.no_attributes)],
  own: (answer) => answer,
});

/** DDI's methods; a poll that changes nothing notes its last-seen time in `seen`. */
export const ddiMethods = (seen: SeenBatch, polls = pollAnswers()): Methods<DdiStore> => ({
  ddiPoll: (deviceId, product, register, polled) =>
    quietOrLoud(
      seen,
      polls,
      product,
      deviceId,
      null,
      polled,
      (device) => pollOf(deviceId, product, register, device),
      () => checkin(deviceId, () => poll(deviceId, product, register)),
    ),
  ddiAction: (deviceId, actionId) => read(() => action(deviceId, actionId)),
  setFirmwareDigests: (firmwareId, { sha1, md5 }) =>
    unlocked(function* () {
      yield* run("UPDATE firmwares SET sha1 = ?, md5 = ? WHERE id = ? AND sha1 IS NULL", sha1, md5, firmwareId);
    }),
  // As §6's status: without the write lock on PostgreSQL, the device's row locked first.
  ddiFeedback: (deviceId, actionId, kind, feedback, product) =>
    unlocked(function* () {
      const device = yield* deviceKeys(deviceId, forNoKeyUpdate(yield* dialect()));
      if (!device) throw new NotFoundError(unknownDevice(deviceId));
      const row = yield* one<ActionRow>(
        "SELECT id, firmware_id, state FROM ddi_actions WHERE id = ? AND device_id = ?",
        actionId,
        deviceId,
      );
      if (!row) throw noAction(deviceId, actionId);
      const at = now();
      if (kind === "cancel") {
        if (row.state === "canceling" && endsWithdrawal(feedback)) {
          yield* run("UPDATE ddi_actions SET state = 'canceled', updated_at = ? WHERE id = ?", at, actionId);
        }
        return;
      }
      const report = ddiReportOf(feedback);
      if (row.state === "open" && report.state !== null) {
        // Recorded only while the action's firmware is the one that applies (as §6 refuses a report of another one);
        // feedback on a withdrawn or closed action changes its action only.
        const { rolloutId, firmware } = yield* resolveFirmware(device, product);
        if (firmware?._id === row.firmware_id) {
          yield* recordStatus(deviceId, rolloutId, {
            firmwareId: row.firmware_id,
            state: report.state,
            ...(report.progress === null ? {} : { progress: report.progress }),
            ...(report.message === null ? {} : { message: report.message }),
          });
        }
      }
      if (report.closes && (row.state === "open" || row.state === "canceling")) {
        yield* run(
          "UPDATE ddi_actions SET state = 'closed', result = ?, updated_at = ? WHERE id = ?",
          report.closes,
          at,
          actionId,
        );
      }
    }),
  ddiConfigData: (deviceId, attributes) =>
    unlocked(function* () {
      const row = yield* one<{ attributes: string | null }>(
        `SELECT attributes FROM devices WHERE device_id = ?${forNoKeyUpdate(yield* dialect())}`,
        deviceId,
      );
      if (!row) throw new NotFoundError(noDevice(deviceId));
      const json = attributesJson(attributes);
      if (row.attributes === json) return;
      const before = row.attributes === null ? {} : JSON.parse(row.attributes) as DeviceAttributes;
      yield* run(
        "UPDATE devices SET attributes = ?, updated_at = ?, revision = ? WHERE device_id = ?",
        json,
        now(),
        yield* nextRevision(),
        deviceId,
      );
      yield* appendAudit({
        action: "device.attributes",
        target: deviceTarget(deviceId),
        details: attributeChanges(before, attributes),
      });
    }),
});
