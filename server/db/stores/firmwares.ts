import type { Firmware, FirmwareSignature } from "../../../shared/schemas/firmware.ts";
import { ConflictError, ForbiddenError, NotFoundError, SigningKeyRevokedError } from "../errors.ts";
import {
  approvalNotPending,
  firmwareEntry,
  firmwareInUse,
  firmwareNameTaken,
  firmwarePending,
  firmwareTarget,
  isInUse,
  noFirmware,
  OWN_UPLOAD,
  signingKeyGone,
} from "../rules/firmwares.ts";
import type { FirmwareStore } from "../types/firmwares.ts";
import { all, dialect, type Engine, one, type Q, run, storeOf, write } from "../runner.ts";
import { appendAudit } from "./audit.ts";
import { now } from "../clock.ts";

/** The columns of a firmware's signature summary, for a query over `firmwares f` joined with SIGNATURE_JOIN. */
export const SIGNATURE_COLUMNS =
  "f.signature_key_id AS sig_key_id, f.signature AS sig_value, rk.name AS sig_key_name, rk.algorithm AS sig_algorithm";
export const SIGNATURE_JOIN = "LEFT JOIN release_keys rk ON rk.id = f.signature_key_id";

export interface SignatureRow {
  sig_key_id: string | null;
  sig_value: string | null;
  sig_key_name: string | null;
  sig_algorithm: FirmwareSignature["algorithm"] | null;
}

/** A firmware's signature summary (docs/REQUIREMENTS.md §20) from SIGNATURE_COLUMNS; null: unsigned. */
export const signatureOf = (r: SignatureRow): FirmwareSignature | null =>
  r.sig_key_id && r.sig_value
    ? { keyId: r.sig_key_id, keyName: r.sig_key_name ?? "", algorithm: r.sig_algorithm!, value: r.sig_value }
    : null;

/** A firmware's signature summary by its id (null: unsigned or no such firmware): what §6 and §18 name. */
export function* firmwareSignature(firmwareId: string): Q<FirmwareSignature | null> {
  const row = yield* one<SignatureRow>(
    `SELECT ${SIGNATURE_COLUMNS} FROM firmwares f ${SIGNATURE_JOIN} WHERE f.id = ?`,
    firmwareId,
  );
  return row ? signatureOf(row) : null;
}

interface FirmwareRow extends SignatureRow {
  id: string;
  name: string;
  size: number;
  sha256: string;
  created_at: string;
  uploaded_by_id: string | null;
  uploaded_by: string | null;
  approval: Firmware["approval"]["state"];
  approved_by: string | null;
  approved_at: string | null;
  approval_meaning: string | null;
}

const COLUMNS = `f.id, f.name, f.size, f.sha256, f.created_at, f.uploaded_by_id, f.uploaded_by, f.approval,
  f.approved_by, f.approved_at, f.approval_meaning, ${SIGNATURE_COLUMNS}`;

const toFirmware = (r: FirmwareRow): Firmware => ({
  _id: r.id,
  name: r.name,
  createdAt: r.created_at,
  size: Number(r.size),
  sha256: r.sha256,
  signature: signatureOf(r),
  approval: { state: r.approval, by: r.approved_by, at: r.approved_at, meaning: r.approval_meaning },
  uploadedBy: r.uploaded_by,
});

function* getRow(id: string, lock = false): Q<FirmwareRow | undefined> {
  if (lock) {
    // FOR UPDATE may not lock the nullable side of an outer join (PostgreSQL): the firmware row is locked alone.
    const d = yield* dialect();
    if (!(yield* one(`SELECT id FROM firmwares WHERE id = ?${d.forUpdate}`, id))) return undefined;
  }
  return yield* one<FirmwareRow>(`SELECT ${COLUMNS} FROM firmwares f ${SIGNATURE_JOIN} WHERE f.id = ?`, id);
}

function* getFirmware(id: string, lock = false): Q<Firmware | null> {
  const row = yield* getRow(id, lock);
  return row ? toFirmware(row) : null;
}

/**
 * Refuses (ConflictError naming the missing approval) a firmware that awaits approval, for a use that would reach
 * devices: `use` completes "it cannot ..." ("be a device type's default"). Run in the writing transaction of that use.
 */
export function* requireReleasable(firmwareId: string, use: string): Q<void> {
  const row = yield* one<{ name: string; approval: string }>(
    "SELECT name, approval FROM firmwares WHERE id = ?",
    firmwareId,
  );
  if (row?.approval === "pending") throw new ConflictError(firmwarePending(row.name, use));
}

const NO_APPROVAL_NEEDED: Firmware["approval"] = { state: "not_required", by: null, at: null, meaning: null };

export function firmwareStore(engine: Engine): FirmwareStore {
  return storeOf<FirmwareStore>(engine, {
    // Newest first; the insert order breaks ties between uploads within the same millisecond.
    *list() {
      const d = yield* dialect();
      const rows = yield* all<FirmwareRow>(
        `SELECT ${COLUMNS} FROM firmwares f ${SIGNATURE_JOIN}
         ORDER BY f.created_at DESC, f.${d.tieBreak("firmwares")} DESC`,
      );
      return rows.map(toFirmware);
    },
    get: (id) => getFirmware(id),
    *nameTaken(name) {
      return (yield* one("SELECT 1 FROM firmwares WHERE name = ?", name)) !== undefined;
    },
    *firstWithSha256(sha256, exceptId) {
      const d = yield* dialect();
      const row = yield* one<FirmwareRow>(
        `SELECT ${COLUMNS} FROM firmwares f ${SIGNATURE_JOIN} WHERE f.sha256 = ? AND f.id != ?
         ORDER BY f.created_at, f.${d.tieBreak("firmwares")} LIMIT 1`,
        sha256,
        exceptId ?? "",
      );
      return row ? toFirmware(row) : null;
    },
    *ids() {
      return (yield* all<{ id: string }>("SELECT id FROM firmwares")).map((r) => r.id);
    },
    insert: (row, uploaderId = null, digests) =>
      write(function* () {
        const f: Firmware = {
          ...row,
          signature: row.signature ?? null,
          approval: row.approval ?? NO_APPROVAL_NEEDED,
          uploadedBy: row.uploadedBy ?? null,
        };
        const d = yield* dialect();
        if (f.signature) {
          // A key revoked while the file streamed verifies nothing new: checked with the insert, in its transaction.
          const key = yield* one<{ revoked_at: string | null }>(
            `SELECT revoked_at FROM release_keys WHERE id = ?${d.forUpdate}`,
            f.signature.keyId,
          );
          if (!key || key.revoked_at !== null) throw new SigningKeyRevokedError(signingKeyGone(f.signature.keyName));
        }
        try {
          yield* run(
            `INSERT INTO firmwares (id, name, size, sha256, created_at, signature_key_id, signature, uploaded_by_id,
               uploaded_by, approval, approved_by, approved_at, approval_meaning, sha1, md5)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
            f._id,
            f.name,
            f.size,
            f.sha256,
            f.createdAt,
            f.signature?.keyId ?? null,
            f.signature?.value ?? null,
            uploaderId,
            f.uploadedBy,
            f.approval.state,
            f.approval.by,
            f.approval.at,
            f.approval.meaning,
            digests?.sha1 ?? null,
            digests?.md5 ?? null,
          );
        } catch (err) {
          if (d.isUniqueViolation(err)) throw new ConflictError(firmwareNameTaken(f.name));
          throw err;
        }
        yield* appendAudit(firmwareEntry("firmware.upload", f));
      }),
    approve: (id, approver, meaning) =>
      write(function* () {
        const row = yield* getRow(id, true);
        if (!row) throw new NotFoundError(noFirmware(id));
        const firmware = toFirmware(row);
        if (firmware.approval.state !== "pending") throw new ConflictError(approvalNotPending(firmware));
        if (row.uploaded_by_id === approver.id) throw new ForbiddenError(OWN_UPLOAD);
        const at = now();
        yield* run(
          "UPDATE firmwares SET approval = 'approved', approved_by = ?, approved_at = ?, approval_meaning = ? WHERE id = ?",
          approver.email,
          at,
          meaning,
          id,
        );
        // The electronic signature's record: who (the entry's actor, and here by name), when (the entry's time and
        // here), what it means, over which bytes.
        yield* appendAudit({
          action: "firmware.approve",
          target: firmwareTarget(firmware),
          details: {
            meaning,
            approvedBy: approver.email,
            approvedAt: at,
            sha256: firmware.sha256,
            uploadedBy: firmware.uploadedBy,
          },
        });
        return (yield* getFirmware(id))!;
      }),
    remove: (id) =>
      write(function* () {
        const firmware = yield* getFirmware(id, true);
        if (!firmware) throw new NotFoundError(noFirmware(id));
        const types = yield* all<{ name: string }>(
          "SELECT name FROM device_types WHERE default_firmware = ? ORDER BY name",
          id,
        );
        const devices = yield* one<{ n: number }>("SELECT count(*) AS n FROM devices WHERE firmware_id = ?", id);
        const rollouts = yield* all<{ name: string }>(
          "SELECT name FROM rollouts WHERE firmware_id = ? AND state IN ('draft', 'running', 'paused') ORDER BY name",
          id,
        );
        const use = {
          defaultOf: types.map((t) => t.name),
          devices: Number(devices!.n),
          rollouts: rollouts.map((r) => r.name),
        };
        if (isInUse(use)) throw new ConflictError(firmwareInUse(firmware.name, use));
        yield* run("DELETE FROM firmwares WHERE id = ?", id);
        yield* appendAudit(firmwareEntry("firmware.delete", firmware));
        return firmware;
      }),
  });
}
