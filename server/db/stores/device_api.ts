/** What devices call (docs/REQUIREMENTS.md §6, §13): check-in, enrolment, configuration, firmware and status reports. */
import { refreshDeviceKeys } from "./firmware_keys.ts";
import { SIGNATURE_COLUMNS, SIGNATURE_JOIN, signatureOf, type SignatureRow } from "./firmwares.ts";
import type { Admission, VersionInfo } from "../../../shared/schemas/device.ts";
import type { DeviceConfig } from "../../../shared/schemas/device_api.ts";
import { deviceTypeName } from "../../../shared/schemas/device_type.ts";
import { now } from "../clock.ts";
import { enrollAuditDetails, enrollStep, outcomeOf } from "../rules/admission.ts";
import { deviceTarget, noDevice } from "../rules/devices.ts";
import { seenHourOf } from "../rules/device_view.ts";
import { firstPlaces, versionInfoJson } from "../rules/device_config.ts";
import type { DeviceApiStore, FirmwareRef, PolledDevice, QuietDevice } from "../types/device_api.ts";
export type { PolledDevice, QuietDevice };
import { ConflictError, NotFoundError } from "../errors.ts";
import { deviceUpdateOf, firmwareInEffectOf, statusMismatch, unknownDevice } from "../rules/rollouts.ts";
import {
  TREATMENT_CONTENT_JOIN,
  TREATMENT_ROW_COLUMNS,
  treatmentFromRow,
  type TreatmentRow,
} from "../rules/treatment_rows.ts";
import {
  all,
  dialect,
  type Engine,
  nextRevision,
  one,
  type Q,
  read,
  run,
  storeOf,
  unlocked,
  writeRetried,
} from "../runner.ts";
import {
  IN_OFFERING_ROLLOUT,
  joinRollouts,
  offeredByRollout,
  type OfferedFirmware,
  recordInRollout,
  ROLLOUT_TO_JOIN,
} from "./rollouts.ts";
import { appendAudit } from "./audit.ts";
import { forNoKeyUpdate, same } from "./dialect_sql.ts";
import { ddiMethods } from "./ddi.ts";
import { type SeenBatch, seenBatch } from "../last_seen.ts";
import { AnswerCache } from "../answer_cache.ts";
import { CoalescedReads } from "../coalesced_reads.ts";
import type { StatusBody } from "../../../shared/schemas/rollout.ts";

/**
 * Records a device check-in in ONE statement: creates the device when unknown, else sets only its check-in's hour and
 * `version_info` (never a read-modify-write of the whole row, so a check-in cannot undo an operator's concurrent
 * change). `updated_at` moves only when the version info actually changed: a device that merely checks in is not
 * "updated". Answers whether it created the device.
 */
export function* checkinDevice(deviceId: string, versionInfo: VersionInfo | null, at: string = now()): Q<boolean> {
  const d = yield* dialect();
  // Without version info (a hawkBit DDI poll: docs/REQUIREMENTS.md §18), the stored one is kept.
  const keep = versionInfo === null;
  const upsert = `INSERT INTO devices (device_id, created_at, updated_at, seen_hour, version_info)
     VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (device_id) DO UPDATE SET
       seen_hour = excluded.seen_hour${
    keep ? "" : `,
       updated_at = CASE WHEN ${same(d, "devices.version_info", "excluded.version_info")} THEN devices.updated_at
                         ELSE excluded.updated_at END,
       version_info = excluded.version_info`
  }`;
  const args = [deviceId, at, at, seenHourOf(at), keep ? null : versionInfoJson(versionInfo)];
  let created: boolean;
  if (d.engine === "sqlite") {
    created = (yield* one("SELECT 1 AS one FROM devices WHERE device_id = ?", deviceId)) === undefined;
    yield* run(upsert, ...args);
  } else {
    created = Boolean(
      (yield* one<{ inserted: boolean }>(`${upsert} RETURNING (xmax = 0) AS inserted`, ...args))!.inserted,
    );
  }
  yield* writeSeenAt(deviceId, at);
  if (created) yield* refreshDeviceKeys("d.device_id = ?", [deviceId]);
  return created;
}

/**
 * A loud write's exact last check-in, after its devices row (which holds its hour, seen_hour): the narrow row made by
 * the insert's trigger, or the device's own.
 */
function* writeSeenAt(deviceId: string, at: string): Q<void> {
  yield* run("UPDATE device_seen SET last_logged_in = ? WHERE device_id = ?", at, deviceId);
}

/** DEVICE_AUTH=shared's check-in write: the device created when unknown (audited), else its check-in recorded. */
export function* recordCheckin(deviceId: string, versionInfo: VersionInfo | null): Q<void> {
  if (yield* checkinDevice(deviceId, versionInfo)) {
    yield* appendAudit({ action: "device.create", target: deviceTarget(deviceId), details: { versionInfo } });
  }
}

/**
 * DEVICE_AUTH=token's check-in write: an update of the device's own row (null versionInfo: kept); NotFoundError when
 * the device is gone (deleted since its token was checked).
 */
export function* recordKnownCheckin(deviceId: string, versionInfo: VersionInfo | null): Q<void> {
  const d = yield* dialect();
  const at = now();
  const updated = versionInfo === null
    ? yield* run("UPDATE devices SET seen_hour = ? WHERE device_id = ?", seenHourOf(at), deviceId)
    : yield* run(
      `UPDATE devices SET seen_hour = ?,
         updated_at = CASE WHEN ${same(d, "version_info", "?")} THEN updated_at ELSE ? END,
         version_info = ?
       WHERE device_id = ?`,
      seenHourOf(at),
      versionInfoJson(versionInfo),
      at,
      versionInfoJson(versionInfo),
      deviceId,
    );
  if (updated === 0) throw new NotFoundError(noDevice(deviceId));
  yield* writeSeenAt(deviceId, at);
}

const FIRMWARE_COLUMNS = `f.id AS _id, f.name, f.size, f.sha256, ${SIGNATURE_COLUMNS}`;

export interface DeviceKeys {
  device_id: string;
  product_type_id: string | null;
  firmware_id: string | null;
}

export function* deviceKeys(deviceId: string, lock = ""): Q<DeviceKeys | undefined> {
  return yield* one<DeviceKeys>(
    `SELECT device_id, product_type_id, firmware_id FROM devices WHERE device_id = ?${lock}`,
    deviceId,
  );
}

/**
 * The firmware that applies to a device (docs/REQUIREMENTS.md §13): its custom firmware, else the one a rollout offers it, else
 * the managed type's default; with the rollout that offers it, if one does.
 */
export function* resolveFirmware(
  device: DeviceKeys,
  product: string,
): Q<OfferedFirmware | { rolloutId: null; firmware: FirmwareRef | null }> {
  if (device.firmware_id === null) {
    const offered = yield* offeredByRollout(device.device_id, device.product_type_id);
    if (offered) return offered;
  }
  return { rolloutId: null, firmware: yield* applicableFirmware(device.firmware_id, product) };
}

/** The firmware that applies given a device's custom firmware id: that one, else the managed type's default. */
function* applicableFirmware(customFirmwareId: string | null, product: string): Q<FirmwareRef | null> {
  type Row = Omit<FirmwareRef, "signature"> & SignatureRow;
  const row = customFirmwareId
    ? yield* one<Row>(`SELECT ${FIRMWARE_COLUMNS} FROM firmwares f ${SIGNATURE_JOIN} WHERE f.id = ?`, customFirmwareId)
    : yield* one<Row>(
      `SELECT ${FIRMWARE_COLUMNS} FROM device_types t JOIN firmwares f ON f.id = t.default_firmware ${SIGNATURE_JOIN}
       WHERE t.name = ?`,
      deviceTypeName(product),
    );
  return row
    ? { _id: row._id, name: row.name, size: Number(row.size), sha256: row.sha256, signature: signatureOf(row) }
    : null;
}

/** The firmware that applies to a device, or undefined when the device does not exist. */
function* deviceFirmware(deviceId: string, product: string): Q<FirmwareRef | null | undefined> {
  const device = yield* deviceKeys(deviceId);
  return device ? (yield* resolveFirmware(device, product)).firmware : undefined;
}

/** A module of the product type the device has: a default one, or one enabled on the device. */
const DEVICE_MODULE = `m.product_type_id = ?
  AND (m.is_default OR EXISTS (SELECT 1 FROM device_modules dm WHERE dm.device_id = ? AND dm.module_id = m.id))`;

/**
 * What a device gets on check-in and GET config, or null when the device is unknown.
 * Modules: the product type's defaults plus the device's enabled ones, in module order.
 * Treatments: see firstPlaces().
 */
function* deviceConfig(deviceId: string, product: string, keys?: DeviceKeys): Q<DeviceConfig | null> {
  const device = keys ?? (yield* deviceKeys(deviceId));
  if (!device) return null;

  let productType: DeviceConfig["productType"] = null;
  let modules: DeviceConfig["modules"] = [];
  const treatmentRows: TreatmentRow[] = [];
  if (device.product_type_id) {
    const pt = yield* one<{ id: string; name: string; theme: string }>(
      "SELECT id, name, theme FROM product_types WHERE id = ?",
      device.product_type_id,
    );
    if (pt) {
      productType = { _id: pt.id, name: pt.name, theme: JSON.parse(pt.theme) };
      const moduleRows = yield* all<{ id: string; name: string; is_default: number | boolean }>(
        `SELECT m.id, m.name, m.is_default FROM modules m WHERE ${DEVICE_MODULE} ORDER BY m.position, m.id`,
        pt.id,
        deviceId,
      );
      modules = moduleRows.map((m) => ({ _id: m.id, name: m.name, isDefault: Boolean(m.is_default) }));
      treatmentRows.push(
        ...yield* all<TreatmentRow>(
          `SELECT ${TREATMENT_ROW_COLUMNS} FROM modules m
           JOIN module_treatments mt ON mt.module_id = m.id
           JOIN treatments t ON t.id = mt.treatment_id ${TREATMENT_CONTENT_JOIN}
           WHERE ${DEVICE_MODULE}
           ORDER BY m.position, m.id, mt.position`,
          pt.id,
          deviceId,
        ),
      );
    }
  }
  treatmentRows.push(
    ...yield* all<TreatmentRow>(
      `SELECT ${TREATMENT_ROW_COLUMNS} FROM device_treatments dt
       JOIN treatments t ON t.id = dt.treatment_id ${TREATMENT_CONTENT_JOIN}
       WHERE dt.device_id = ? ORDER BY dt.position`,
      deviceId,
    ),
  );
  const treatments = firstPlaces(treatmentRows, (row) => row.id).map(treatmentFromRow);
  return { deviceId, productType, modules, treatments, firmware: (yield* resolveFirmware(device, product)).firmware };
}

/** The configuration of a device the check-in is about to create: none of its own, the firmware that applies. */
function* newDeviceConfig(deviceId: string, product: string): Q<DeviceConfig> {
  const { firmware } = yield* resolveFirmware(
    { device_id: deviceId, product_type_id: null, firmware_id: null },
    product,
  );
  return { deviceId, productType: null, modules: [], treatments: [], firmware };
}

/**
 * A check-in (`write`: the device's own row): the configuration is read first and the row written last, just before
 * the commit (what the check-in writes, lastLoggedIn and versionInfo, is not part of the configuration, so the answer
 * is the one it leaves). One transaction without the write lock on PostgreSQL (one upsert of its own row checks nothing
 * first, so a check-in never waits behind an import's publish): the upsert's triggers lock the devices change counter
 * row until the commit, and every check-in needs that lock, so it is held for one statement, not for the reads too.
 * There, joining the rollouts of its scope (counts only: config resolution needs no row) is a transaction of its own,
 * after the check-in's: a status report holds a rollout's row then the counter; taking a rollout's row inside would
 * order the two the other way round. On SQLite the join is part of the one transaction.
 */
export function* checkin<T>(deviceId: string, write: () => Q<T>): Q<T> {
  const d = yield* dialect();
  const joinInside = d.engine === "sqlite";
  const config = yield* unlocked(function* () {
    const config = yield* write();
    if (joinInside) yield* joinRollouts(deviceId);
    return config;
  });
  if (!joinInside) yield* joinRollouts(deviceId);
  return config;
}

/**
 * A poll that changes nothing (docs/DECISIONS.md, "Polls that change nothing cost no write"): one statement first
 * (quietDevice, or the guard's `polled` when it read the same row with the device's token: polledDevice; a first
 * check-in, a version change or a rollout to join goes straight to `loud`, the full check-in), then `quiet` answers in
 * a read-only transaction, or null when the poll must write after all (DDI: an action to open or withdraw; then
 * `loud`). A quiet answer notes the device's last-seen time in `seen`, written in the next batch. `polled` null: the
 * row was read already and there is none (loud).
 */
export function* quietOrLoud<T>(
  seen: SeenBatch,
  answers: QuietAnswers<T>,
  product: string,
  deviceId: string,
  versionInfo: VersionInfo | null,
  polled: PolledDevice | null | undefined,
  quiet: (device: QuietDevice) => Q<T | null>,
  loud: () => Q<T>,
): Q<T> {
  const at = now();
  const device = polled === undefined
    ? yield* quietDevice(deviceId, versionInfo)
    : polled === null
    ? null
    : quietOf(polled, versionInfo);
  if (device === null) return yield* loud();
  // Answered from memory while nothing it reads changed (answer_cache.ts): no further statement.
  const { slot, key } = answerSlot(answers, product, device);
  const held = answers.cache.get(slot, key);
  let answer: T | null;
  if (held !== undefined) answer = answers.own(held, deviceId);
  else {
    const fresh = yield* read(function* () {
      // Held only when read in the generation its key names: a shared answer must be what every device of the key
      // gets, not one read after a change that its key (read before) does not show.
      const gen = yield* one<{ value: number }>("SELECT value FROM config_generation");
      return { answer: yield* quiet(device), gen: Number(gen?.value) };
    });
    answer = fresh.answer;
    if (answer === null) return yield* loud();
    if (fresh.gen === Number(device.gen)) answers.cache.set(slot, key, answer);
  }
  seen.note(deviceId, at);
  return answer;
}

/**
 * Where a kind of quiet answer is held: `shared` names what the answer reads of the device's own row when those are
 * all it reads of the device (null: it reads rows of the device's own, so it is held per device), `own` makes a held
 * answer the device's (its id).
 */
export interface QuietAnswers<T> {
  cache: AnswerCache<T>;
  shared(device: QuietDevice): readonly unknown[] | null;
  own(answer: T, deviceId: string): T;
}

/**
 * The slot and key of a quiet answer: shared by every device whose answer reads the same (the slot is then the key),
 * else the device's own (the configuration generation and the device's own fields any answer reads).
 */
function answerSlot<T>(answers: QuietAnswers<T>, product: string, d: QuietDevice): { slot: string; key: string } {
  const shared = answers.shared(d);
  if (shared !== null) {
    const key = JSON.stringify(["shared", product, Number(d.gen), ...shared]);
    return { slot: key, key };
  }
  return {
    slot: d.device_id,
    key: JSON.stringify([
      product,
      Number(d.gen),
      d.product_type_id,
      d.firmware_id,
      d.update_status,
      Boolean(d.no_attributes),
    ]),
  };
}

/**
 * A check-in's configuration reads of the device its product type and pinned firmware, its enabled modules and own
 * treatments, and (unpinned) the rollouts it is part of; without the middle two it is the same for every device of
 * the same product type and pin, but for its id.
 */
export const configAnswers = (): QuietAnswers<DeviceConfig> => ({
  cache: new AnswerCache<DeviceConfig>(),
  shared: (d) => d.own_config || d.in_rollout ? null : [d.product_type_id, d.firmware_id],
  own: (config, deviceId) => config.deviceId === deviceId ? config : { ...config, deviceId },
});

/** What a quiet poll reads of a device's row and beside it (the rollout to join gives `quiet`). */
const QUIET_COLUMNS =
  `d.device_id, d.product_type_id, d.firmware_id, d.update_status, d.attributes IS NULL AS no_attributes,
   (SELECT value FROM config_generation) AS gen,
   (EXISTS (SELECT 1 FROM device_modules dm WHERE dm.device_id = d.device_id)
     OR EXISTS (SELECT 1 FROM device_treatments dt WHERE dt.device_id = d.device_id)) AS own_config,
   (${IN_OFFERING_ROLLOUT}) AS in_rollout,
   EXISTS (SELECT 1 FROM ddi_actions a WHERE a.device_id = d.device_id AND a.state IN ('open', 'canceling'))
     AS has_action`;

/**
 * The device's row when a check-in with `versionInfo` (null: kept) would change nothing of it but last-seen: seen
 * before, the same version info, no rollout to join (one statement); else null.
 */
export function* quietDevice(deviceId: string, versionInfo: VersionInfo | null): Q<QuietDevice | null> {
  const d = yield* dialect();
  const row = yield* one<QuietDevice & { quiet: number | boolean }>(
    `SELECT ${QUIET_COLUMNS}, d.seen_hour IS NOT NULL${
      versionInfo === null ? "" : ` AND ${same(d, "d.version_info", "?")}`
    }
       AND NOT EXISTS (SELECT 1 FROM rollouts r WHERE ${ROLLOUT_TO_JOIN}) AS quiet
     FROM devices d WHERE d.device_id = ?`,
    ...(versionInfo === null ? [] : [versionInfoJson(versionInfo)]),
    deviceId,
  );
  if (!row || !row.quiet) return null;
  const { quiet: _, ...device } = row;
  return device;
}

/**
 * The token guard's one statement for a poll (DEVICE_AUTH=token): the device's credential and what quietDevice reads,
 * so a quiet poll costs one statement with its credential (docs/DECISIONS.md, "Quiet answers shared by the devices of
 * one configuration"); null for an unknown device.
 */
export function* polledDevice(deviceId: string): Q<PolledDevice | null> {
  const row = yield* one<PolledDevice>(`SELECT ${POLLED_COLUMNS} FROM devices d WHERE d.device_id = ?`, deviceId);
  return row ?? null;
}

const POLLED_COLUMNS = `${QUIET_COLUMNS}, d.admission, d.token_hash, d.version_info,
  d.seen_hour IS NOT NULL AND NOT EXISTS (SELECT 1 FROM rollouts r WHERE ${ROLLOUT_TO_JOIN}) AS quiet`;

/** polledDevice's rows of several devices in one statement (the coalesced polls on PostgreSQL), by device id. */
export function* polledDevices(deviceIds: readonly string[]): Q<Map<string, PolledDevice>> {
  const d = yield* dialect();
  const rows = yield* all<PolledDevice>(
    `SELECT ${POLLED_COLUMNS} FROM devices d WHERE ${d.inList("d.device_id")}`,
    d.list(deviceIds),
  );
  return new Map(rows.map((row) => [row.device_id, row]));
}

/**
 * Polls in flight at once on PostgreSQL, each one statement for all the polls that arrived while the others were out
 * (CoalescedReads), and the most devices one statement reads (docs/DECISIONS.md, "The PostgreSQL quiet poll: its
 * statements coalesced").
 */
const POLL_READS_IN_FLIGHT = 2;
const POLL_READS_MAX_KEYS = 500;

/** quietDevice's answer from the guard's row: the version info compared as the statement compares it (the text). */
function quietOf(polled: PolledDevice, versionInfo: VersionInfo | null): QuietDevice | null {
  const { admission: _a, token_hash: _t, version_info, quiet, ...device } = polled;
  if (!quiet) return null;
  if (versionInfo !== null && version_info !== versionInfoJson(versionInfo)) return null;
  return device;
}

/**
 * Writes coalesced last-seen times (SeenBatch): each device's unless its stored one is later; answers the times left
 * for the next batch. The exact time goes to the narrow table (device_seen); the devices row is written only when the
 * hour moves (seen_hour), so a device polling every few minutes moves it once an hour (docs/DECISIONS.md, "Last-seen
 * writes of a million-device fleet: the exact time beside the row"). The devices change counter moves with every
 * batch (GET devices' page cache shows the times). On PostgreSQL the batch never waits for a row while it holds
 * others: it takes the counter's row first (the lock every device write takes after its own rows), then skips the
 * rows another transaction holds (SKIP LOCKED, the devices row of a moving hour and the narrow row alike; left for
 * the next batch), so it can be in no lock cycle with a write that holds the counter and wants one of its rows.
 */
export function* writeSeen(seen: ReadonlyMap<string, string>): Q<Map<string, string>> {
  const d = yield* dialect();
  const entries = [...seen].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
  const left = new Map<string, string>();
  if (d.engine === "sqlite") {
    // A prepared statement per row costs no round trip there; one transaction for all.
    let written = 0;
    for (const [id, at] of entries) {
      if (
        yield* run("UPDATE device_seen SET last_logged_in = ? WHERE device_id = ? AND last_logged_in < ?", at, id, at)
      ) {
        written++;
        yield* run(
          "UPDATE devices SET seen_hour = ? WHERE device_id = ? AND seen_hour < ?",
          seenHourOf(at),
          id,
          seenHourOf(at),
        );
      }
    }
    if (written) yield* run("UPDATE change_counters SET value = value + 1 WHERE name = 'devices'");
    return left;
  }
  yield* run("UPDATE change_counters SET value = value + 1 WHERE name = 'devices'");
  for (let i = 0; i < entries.length; i += SEEN_ROWS_PER_UPDATE) {
    const chunk = entries.slice(i, i + SEEN_ROWS_PER_UPDATE);
    // c: the devices whose stored time is older, and whether the hour moves (the narrow row's time has the row's hour,
    // so devices is read only for those); h: their devices rows, locked (skipped when held); l: the narrow rows
    // written — those whose hour stays, and those of h.
    const skipped = yield* all<{ id: string; at: string }>(
      `WITH v AS (SELECT * FROM unnest(?::text[], ?::text[]) AS v(id, at)),
       c AS (SELECT s.device_id, v.at, substr(s.last_logged_in, 1, 13) < substr(v.at, 1, 13) AS moves
             FROM device_seen s JOIN v ON s.device_id = v.id WHERE s.last_logged_in < v.at),
       h AS (SELECT d.device_id, substr(c.at, 1, 13) AS hour FROM devices d JOIN c ON d.device_id = c.device_id
             WHERE c.moves ORDER BY d.device_id FOR NO KEY UPDATE OF d SKIP LOCKED),
       l AS (SELECT s.device_id, c.at FROM device_seen s JOIN c ON s.device_id = c.device_id
             WHERE s.last_logged_in < c.at AND (NOT c.moves OR EXISTS (SELECT 1 FROM h WHERE h.device_id = c.device_id))
             ORDER BY s.device_id FOR NO KEY UPDATE OF s SKIP LOCKED),
       u AS (UPDATE device_seen AS s SET last_logged_in = l.at FROM l WHERE s.device_id = l.device_id
             RETURNING s.device_id),
       m AS (UPDATE devices AS d SET seen_hour = h.hour FROM h JOIN u ON u.device_id = h.device_id
             WHERE d.device_id = h.device_id RETURNING d.device_id)
       SELECT v.id, v.at FROM v JOIN device_seen s ON s.device_id = v.id
       WHERE s.last_logged_in < v.at AND NOT EXISTS (SELECT 1 FROM u WHERE u.device_id = v.id)`,
      d.list(chunk.map(([id]) => id)),
      d.list(chunk.map(([, at]) => at)),
    );
    for (const { id, at } of skipped) left.set(id, at);
  }
  return left;
}

const SEEN_ROWS_PER_UPDATE = 2000;

function* enroll(deviceId: string, versionInfo: VersionInfo, tokenHash: string, auto: boolean) {
  const d = yield* dialect();
  const row = yield* one<{ admission: Admission; token_hash: string | null }>(
    `SELECT admission, token_hash FROM devices WHERE device_id = ?${d.forUpdate}`,
    deviceId,
  );
  const step = enrollStep(row ? { admission: row.admission, hasToken: row.token_hash !== null } : null, auto);
  const at = now();
  const info = versionInfoJson(versionInfo);
  switch (step) {
    case "create_pending":
    case "create_issue": {
      const issued = step === "create_issue";
      // A check-in of the shared mode cannot race this one (the modes do not mix on one server); another enrolment of
      // the same id waits on the write lock.
      yield* run(
        `INSERT INTO devices (device_id, created_at, updated_at, version_info, admission, token_hash,
           credentials_issued_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
        deviceId,
        at,
        at,
        info,
        issued ? "accepted" : "pending",
        issued ? tokenHash : null,
        issued ? at : null,
      );
      yield* refreshDeviceKeys("d.device_id = ?", [deviceId]);
      break;
    }
    case "pending":
      yield* run(
        `UPDATE devices SET updated_at = CASE WHEN ${same(d, "version_info", "?")} THEN updated_at ELSE ? END,
           version_info = ? WHERE device_id = ?`,
        info,
        at,
        info,
        deviceId,
      );
      break;
    case "issue":
      yield* run(
        `UPDATE devices SET admission = 'accepted', token_hash = ?, credentials_issued_at = ?, updated_at = ?,
           version_info = ?, revision = ? WHERE device_id = ?`,
        tokenHash,
        at,
        at,
        info,
        yield* nextRevision(),
        deviceId,
      );
      break;
  }
  const details = enrollAuditDetails(step, row?.admission ?? null);
  if (details) yield* appendAudit({ action: "device.enroll", target: deviceTarget(deviceId), details });
  return outcomeOf(step);
}

/** The device API's store, with closeSeen(): writes the last-seen times still noted (before the stores close). */
export function deviceApiStore(engine: Engine): DeviceApiStore & { closeSeen(): Promise<void> } {
  const seen = seenBatch((batch) => engine.run(unlocked(() => writeSeen(batch))));
  const configs = configAnswers();
  /** A check-in: quiet (read, answered from memory while nothing changed) or `loud`. */
  const checkinOf = (
    deviceId: string,
    versionInfo: VersionInfo,
    product: string,
    polled: PolledDevice | null | undefined,
    loud: () => Q<DeviceConfig>,
  ) =>
    quietOrLoud(
      seen,
      configs,
      product,
      deviceId,
      versionInfo,
      polled,
      (d) => deviceConfig(deviceId, product, d),
      () => checkin(deviceId, loud),
    );
  /** DEVICE_AUTH=shared's check-in; `polled`: the device's row read already (null: none), else read here. */
  const sharedCheckin = (
    deviceId: string,
    versionInfo: VersionInfo,
    product: string,
    polled: PolledDevice | null | undefined,
  ) =>
    checkinOf(deviceId, versionInfo, product, polled, function* () {
      const config = (yield* deviceConfig(deviceId, product)) ?? (yield* newDeviceConfig(deviceId, product));
      yield* recordCheckin(deviceId, versionInfo);
      return config;
    });
  const ddi = ddiMethods(seen);
  const store = storeOf<Omit<DeviceApiStore, "flushSeen" | "pollsWait">>(engine, {
    checkin: (deviceId, versionInfo, product, polled) => sharedCheckin(deviceId, versionInfo, product, polled),
    // Token mode: the row must be there (its token was just checked); an update of its own row.
    checkinKnown: (deviceId, versionInfo, product, polled) =>
      checkinOf(deviceId, versionInfo, product, polled, function* () {
        const config = yield* deviceConfig(deviceId, product);
        yield* recordKnownCheckin(deviceId, versionInfo);
        if (!config) throw new NotFoundError(noDevice(deviceId));
        return config;
      }),
    polledDevice: (deviceId) => polledDevice(deviceId),
    *credentials(deviceId) {
      const row = yield* one<{ admission: Admission; token_hash: string | null }>(
        "SELECT admission, token_hash FROM devices WHERE device_id = ?",
        deviceId,
      );
      return row ? { admission: row.admission, tokenHash: row.token_hash } : null;
    },
    enroll: (deviceId, versionInfo, tokenHash, auto) =>
      writeRetried(() => enroll(deviceId, versionInfo, tokenHash, auto)),
    config: (deviceId, product) => read(() => deviceConfig(deviceId, product)),
    firmware: (deviceId, product) => read(() => deviceFirmware(deviceId, product)),
    firmwareInEffect: (deviceId, product) =>
      read(function* () {
        const device = yield* deviceKeys(deviceId);
        if (!device) return null;
        const resolved = yield* resolveFirmware(device, product);
        const rollout = resolved.rolloutId === null
          ? undefined
          : yield* one<{ name: string }>("SELECT name FROM rollouts WHERE id = ?", resolved.rolloutId);
        return firmwareInEffectOf(deviceId, device.firmware_id, resolved, rollout?.name ?? null);
      }),
    // Without the write lock on PostgreSQL (see rollouts.ts): the device's row is locked first (one report per device
    // at a time), then the rollout's row and the devices change counter by recordInRollout's last statement.
    status: (deviceId, report, product) =>
      unlocked(function* () {
        const device = yield* deviceKeys(deviceId, forNoKeyUpdate(yield* dialect()));
        if (!device) throw new NotFoundError(unknownDevice(deviceId));
        const { rolloutId, firmware } = yield* resolveFirmware(device, product);
        if (firmware?._id !== report.firmwareId) {
          throw new ConflictError(statusMismatch(deviceId, report.firmwareId, firmware?._id ?? null));
        }
        yield* recordStatus(deviceId, rolloutId, report);
      }),
    ...ddi,
  });
  const done = { ...store, pollsWait: false, flushSeen: () => seen.flush(), closeSeen: () => seen.close() };
  if (engine.dialect.engine === "sqlite") return done;
  // PostgreSQL: a poll's one statement (its row, its credential with it) coalesced with the others in flight, then
  // handed to the poll as the token guard's row is (quietOf): a round trip and a statement per batch, not per poll.
  const rows = new CoalescedReads<PolledDevice>(
    (ids) => engine.run(polledDevices(ids)),
    POLL_READS_IN_FLIGHT,
    POLL_READS_MAX_KEYS,
  );
  const readRow = async (deviceId: string) => (await rows.get(deviceId)) ?? null;
  return {
    ...done,
    pollsWait: true,
    polledDevice: readRow,
    // Without the guard's row (not given in the stores' own tests), read as a poll reads it.
    checkin: async (deviceId, versionInfo, product, polled) =>
      await engine.run(
        sharedCheckin(deviceId, versionInfo, product, polled === undefined ? await readRow(deviceId) : polled),
      ),
    checkinKnown: async (deviceId, versionInfo, product, polled) =>
      await store.checkinKnown(deviceId, versionInfo, product, polled ?? (await rows.get(deviceId))),
    ddiPoll: async (deviceId, product, register, polled) =>
      await engine.run(
        ddi.ddiPoll(deviceId, product, register, polled === undefined ? await readRow(deviceId) : polled),
      ),
  };
}

/**
 * Records an update report of the firmware that applies (checked by the caller, in its transaction) as the device's
 * `update` and, when a rollout offers it, in the rollout's counts, which may pause, advance or finish it. §6's status
 * and hawkBit DDI's feedback both record through here.
 */
export function* recordStatus(deviceId: string, rolloutId: string | null, report: StatusBody): Q<void> {
  const at = now();
  const update = deviceUpdateOf(report, at);
  const json = JSON.stringify(update);
  if (rolloutId) yield* recordInRollout(rolloutId, deviceId, update, at, json);
  else yield* run("UPDATE devices SET update_status = ? WHERE device_id = ?", json, deviceId);
}
