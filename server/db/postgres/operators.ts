import { newId } from "../../../shared/ids.ts";
import { now } from "../clock.ts";
import { ConflictError } from "../errors.ts";
import { emailKey } from "../rules/operators.ts";
import type { Operator, OperatorStore } from "../types/operators.ts";
import { isUniqueViolation, type Sql, type Tx, write } from "./open.ts";

async function findOperator(tx: Tx, email: string): Promise<Operator | null> {
  const rows = await tx`SELECT id, email, password_hash, password_version FROM operators
    WHERE email_key = ${emailKey(email)}`;
  if (!rows.length) return null;
  const r = rows[0];
  return { id: r.id, email: r.email, passwordHash: r.password_hash, passwordVersion: Number(r.password_version) };
}

const countOperators = async (tx: Tx) => Number((await tx`SELECT count(*) AS n FROM operators`)[0].n);

async function insertOperator(tx: Tx, email: string, passwordHash: string): Promise<void> {
  const t = now();
  try {
    await tx`INSERT INTO operators (id, email, email_key, password_hash, created_at, updated_at)
      VALUES (${newId()}, ${email.trim()}, ${emailKey(email)}, ${passwordHash}, ${t}, ${t})`;
  } catch (err) {
    if (isUniqueViolation(err)) throw new ConflictError(`Operator ${email} exists already.`);
    throw err;
  }
}

export function postgresOperators(sql: Sql): OperatorStore {
  return {
    find: (email) => findOperator(sql, email),
    // One indexed row read per request, from the primary: a password change made through any replica is seen by the
    // next request (docs/DECISIONS.md, "PostgreSQL": chosen over a LISTEN/NOTIFY-invalidated cache, which would save
    // this round trip at the price of a window while the listener reconnects).
    current: (email) => findOperator(sql, email),
    count: () => countOperators(sql),
    add: (email, passwordHash) => write(sql, (tx) => insertOperator(tx, email, passwordHash)),
    addFirst: (email, passwordHash) =>
      write(sql, async (tx) => {
        if (await countOperators(tx) > 0) return false;
        await insertOperator(tx, email, passwordHash);
        return true;
      }),
    setPassword: (email, passwordHash) =>
      write(sql, async (tx) => {
        const r = await tx`UPDATE operators SET password_hash = ${passwordHash},
          password_version = password_version + 1, updated_at = ${now()} WHERE email_key = ${emailKey(email)}`;
        return r.count > 0;
      }),
  };
}
