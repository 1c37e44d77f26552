import { newId } from "../../../shared/ids.ts";
import { now } from "../clock.ts";
import { ConflictError } from "../errors.ts";
import { emailKey } from "../rules/operators.ts";
import type { Operator, OperatorStore } from "../types/operators.ts";
import { type Db, isUniqueViolation, sql, transaction } from "./open.ts";
import { promised } from "./promised.ts";

const SELECT_OPERATOR = `SELECT id, email, password_hash AS passwordHash, password_version AS passwordVersion
  FROM operators WHERE email_key = ?`;

function findOperator(db: Db, email: string): Operator | null {
  const row = sql(db, SELECT_OPERATOR).get(emailKey(email)) as Operator | undefined;
  return row ? { ...row } : null;
}

const countOperators = (db: Db) => (sql(db, "SELECT count(*) AS n FROM operators").get() as { n: number }).n;

function insertOperator(db: Db, email: string, passwordHash: string): void {
  const t = now();
  try {
    sql(
      db,
      "INSERT INTO operators (id, email, email_key, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
    )
      .run(newId(), email.trim(), emailKey(email), passwordHash, t, t);
  } catch (err) {
    if (isUniqueViolation(err)) throw new ConflictError(`Operator ${email} exists already.`);
    throw err;
  }
}

export function sqliteOperators(db: Db): OperatorStore {
  return promised<OperatorStore>({
    find: (email) => findOperator(db, email),
    // A local read of one indexed row per request: a change by any process is seen at once.
    current: (email) => findOperator(db, email),
    count: () => countOperators(db),
    add: (email, passwordHash) => insertOperator(db, email, passwordHash),
    addFirst: (email, passwordHash) =>
      transaction(db, () => {
        if (countOperators(db) > 0) return false;
        insertOperator(db, email, passwordHash);
        return true;
      }),
    setPassword: (email, passwordHash) =>
      sql(
        db,
        `UPDATE operators SET password_hash = ?, password_version = password_version + 1, updated_at = ?
         WHERE email_key = ?`,
      ).run(passwordHash, now(), emailKey(email)).changes > 0,
  });
}
