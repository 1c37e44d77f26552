import type { OperatorAccount, Role } from "../../../shared/schemas/operator.ts";
import { newId } from "../../../shared/ids.ts";
import { now } from "../clock.ts";
import { ConflictError, NotFoundError } from "../errors.ts";
import { emailKey, LAST_ADMIN, noOperator, operatorTarget, revokes } from "../rules/operators.ts";
import { appendAudit } from "./audit.ts";
import type { Operator, OperatorStore } from "../types/operators.ts";
import { type Db, isUniqueViolation, sql, transaction } from "./open.ts";
import { promised } from "./promised.ts";

const SELECT_OPERATOR = `SELECT id, email, password_hash AS passwordHash, password_version AS passwordVersion, role,
  disabled FROM operators WHERE email_key = ?`;
type AccountRow = Omit<OperatorAccount, "disabled"> & { disabled: number };
const ACCOUNT_COLUMNS = "id AS _id, email, role, disabled, created_at AS createdAt";

function findOperator(db: Db, email: string): Operator | null {
  const row = sql(db, SELECT_OPERATOR).get(emailKey(email)) as
    | (Omit<Operator, "disabled"> & { disabled: number })
    | undefined;
  return row ? { ...row, disabled: row.disabled === 1 } : null;
}

function account(db: Db, id: string): OperatorAccount | null {
  const row = sql(db, `SELECT ${ACCOUNT_COLUMNS} FROM operators WHERE id = ?`).get(id) as
    | AccountRow
    | undefined;
  return row ? { ...row, disabled: row.disabled === 1 } : null;
}

const countOperators = (db: Db) => (sql(db, "SELECT count(*) AS n FROM operators").get() as { n: number }).n;

function insertOperator(db: Db, email: string, passwordHash: string, role: Role): OperatorAccount {
  const t = now();
  const id = newId();
  try {
    sql(
      db,
      `INSERT INTO operators (id, email, email_key, password_hash, role, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ).run(id, email.trim(), emailKey(email), passwordHash, role, t, t);
  } catch (err) {
    if (isUniqueViolation(err)) throw new ConflictError(`Operator ${email.trim()} exists already.`);
    throw err;
  }
  const added = account(db, id)!;
  appendAudit(db, { action: "operator.create", target: operatorTarget(added), details: { role } });
  return added;
}

function updateOperator(db: Db, id: string, patch: { role?: Role; disabled?: boolean }): OperatorAccount {
  return transaction(db, () => {
    const before = account(db, id);
    if (!before) throw new NotFoundError(noOperator(id));
    const role = patch.role ?? before.role;
    const disabled = patch.disabled ?? before.disabled;
    if (before.role === "admin" && !before.disabled && (role !== "admin" || disabled)) {
      const others = sql(db, "SELECT count(*) AS n FROM operators WHERE role = 'admin' AND disabled = 0 AND id <> ?")
        .get(id) as { n: number };
      if (others.n === 0) throw new ConflictError(LAST_ADMIN);
    }
    sql(
      db,
      `UPDATE operators SET role = ?, disabled = ?, password_version = password_version + ?, updated_at = ?
       WHERE id = ?`,
    ).run(role, disabled ? 1 : 0, revokes(before, patch) ? 1 : 0, now(), id);
    const after = account(db, id)!;
    appendAudit(db, {
      action: "operator.update",
      target: operatorTarget(after),
      details: { changes: patch, before: { role: before.role, disabled: before.disabled } },
    });
    return after;
  });
}

export function sqliteOperators(db: Db): OperatorStore {
  return promised<OperatorStore>({
    find: (email) => findOperator(db, email),
    // A local read of one indexed row per request: a change by any process is seen at once.
    current: (email) => findOperator(db, email),
    count: () => countOperators(db),
    add: (email, passwordHash, role) => transaction(db, () => insertOperator(db, email, passwordHash, role)),
    addFirst: (email, passwordHash) =>
      transaction(db, () => {
        if (countOperators(db) > 0) return false;
        insertOperator(db, email, passwordHash, "admin");
        return true;
      }),
    list: () =>
      (sql(db, `SELECT ${ACCOUNT_COLUMNS} FROM operators ORDER BY created_at, rowid`).all() as AccountRow[]).map((
        r,
      ) => ({ ...r, disabled: r.disabled === 1 })),
    update: (id, patch) => updateOperator(db, id, patch),
    resetPassword: (id, passwordHash) =>
      transaction(db, () => {
        const r = sql(
          db,
          `UPDATE operators SET password_hash = ?, password_version = password_version + 1, updated_at = ? WHERE id = ?`,
        ).run(passwordHash, now(), id);
        if (r.changes === 0) throw new NotFoundError(noOperator(id));
        const after = account(db, id)!;
        appendAudit(db, { action: "operator.reset_password", target: operatorTarget(after) });
        return after;
      }),
    setPassword: (email, passwordHash) =>
      transaction(db, () => {
        const row = sql(
          db,
          `UPDATE operators SET password_hash = ?, password_version = password_version + 1, updated_at = ?
           WHERE email_key = ? RETURNING id, email`,
        ).get(passwordHash, now(), emailKey(email)) as { id: string; email: string } | undefined;
        if (!row) return false;
        appendAudit(db, { action: "auth.password_change", target: operatorTarget(row) });
        return true;
      }),
  });
}
