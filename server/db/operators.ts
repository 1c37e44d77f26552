import { type Db, newId, now, sql } from "./mod.ts";

export interface Operator {
  id: string;
  email: string;
  password_hash: string;
  password_version: number;
}

export const emailKey = (email: string) => email.trim().toLowerCase();

export function findOperator(db: Db, email: string): Operator | undefined {
  return sql(db, "SELECT id, email, password_hash, password_version FROM operators WHERE email_key = ?")
    .get(emailKey(email)) as Operator | undefined;
}

export function countOperators(db: Db): number {
  return (sql(db, "SELECT count(*) AS n FROM operators").get() as { n: number }).n;
}

export function insertOperator(db: Db, email: string, passwordHash: string): void {
  const t = now();
  sql(
    db,
    "INSERT INTO operators (id, email, email_key, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
  )
    .run(newId(), email.trim(), emailKey(email), passwordHash, t, t);
}

/** Sets a new hash and bumps the version, so every token issued before stops working. */
export function setOperatorPassword(db: Db, email: string, passwordHash: string): boolean {
  const r = sql(
    db,
    "UPDATE operators SET password_hash = ?, password_version = password_version + 1, updated_at = ? WHERE email_key = ?",
  )
    .run(passwordHash, now(), emailKey(email));
  return r.changes > 0;
}
