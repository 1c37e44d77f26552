/** Release keys: a row per key, revoked in place (never deleted; firmwares reference the key that signed them). */
import type { ReleaseKey } from "../../../shared/schemas/release_key.ts";
import { newId } from "../../../shared/ids.ts";
import { now } from "../clock.ts";
import { ConflictError, NotFoundError } from "../errors.ts";
import {
  noReleaseKey,
  releaseKeyDetails,
  releaseKeyNameKey,
  releaseKeyNameTaken,
  releaseKeyRegistered,
  releaseKeyRevokedAlready,
  releaseKeyTarget,
} from "../rules/release_keys.ts";
import type { ReleaseKeyStore } from "../types/release_keys.ts";
import { all, dialect, type Engine, one, type Q, run, storeOf, write } from "../runner.ts";
import { appendAudit } from "./audit.ts";

interface Row {
  id: string;
  name: string;
  algorithm: ReleaseKey["algorithm"];
  public_key: string;
  fingerprint: string;
  created_at: string;
  created_by: string;
  revoked_at: string | null;
  revoked_by: string | null;
}

const COLUMNS = "id, name, algorithm, public_key, fingerprint, created_at, created_by, revoked_at, revoked_by";

const keyOf = (r: Row): ReleaseKey => ({
  _id: r.id,
  name: r.name,
  algorithm: r.algorithm,
  publicKey: r.public_key,
  fingerprint: r.fingerprint,
  createdAt: r.created_at,
  createdBy: r.created_by,
  revokedAt: r.revoked_at,
  revokedBy: r.revoked_by,
});

/** A key by id (locked for the writing transaction when asked). */
export function* releaseKeyById(id: string, lock = false): Q<ReleaseKey | null> {
  const d = yield* dialect();
  const row = yield* one<Row>(`SELECT ${COLUMNS} FROM release_keys WHERE id = ?${lock ? d.forUpdate : ""}`, id);
  return row ? keyOf(row) : null;
}

export function releaseKeyStore(engine: Engine): ReleaseKeyStore {
  return storeOf<ReleaseKeyStore>(engine, {
    *list() {
      return (yield* all<Row>(`SELECT ${COLUMNS} FROM release_keys ORDER BY created_at, id`)).map(keyOf);
    },
    get: (id) => releaseKeyById(id),
    *active() {
      return (yield* all<Row>(`SELECT ${COLUMNS} FROM release_keys WHERE revoked_at IS NULL ORDER BY created_at, id`))
        .map(keyOf);
    },
    create: (key) =>
      write(function* () {
        const nameKey = releaseKeyNameKey(key.name);
        if (yield* one("SELECT 1 FROM release_keys WHERE name_key = ?", nameKey)) {
          throw new ConflictError(releaseKeyNameTaken(key.name));
        }
        const same = yield* one<{ name: string }>(
          "SELECT name FROM release_keys WHERE fingerprint = ?",
          key.fingerprint,
        );
        if (same) throw new ConflictError(releaseKeyRegistered(same.name));
        const id = newId();
        yield* run(
          `INSERT INTO release_keys (id, name, name_key, algorithm, public_key, fingerprint, created_at, created_by)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
          id,
          key.name,
          nameKey,
          key.algorithm,
          key.publicKey,
          key.fingerprint,
          now(),
          key.createdBy,
        );
        const created = (yield* releaseKeyById(id))!;
        yield* appendAudit({
          action: "release_key.create",
          target: releaseKeyTarget(created),
          details: releaseKeyDetails(created),
        });
        return created;
      }),
    revoke: (id, by) =>
      write(function* () {
        const key = yield* releaseKeyById(id, true);
        if (!key) throw new NotFoundError(noReleaseKey(id));
        if (key.revokedAt !== null) throw new ConflictError(releaseKeyRevokedAlready(key));
        yield* run("UPDATE release_keys SET revoked_at = ?, revoked_by = ? WHERE id = ?", now(), by, id);
        const revoked = (yield* releaseKeyById(id))!;
        yield* appendAudit({
          action: "release_key.revoke",
          target: releaseKeyTarget(revoked),
          details: releaseKeyDetails(revoked),
        });
        return revoked;
      }),
  });
}
