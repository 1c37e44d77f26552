import type { OperatorAccount, Role } from "../../../shared/schemas/operator.ts";
import { newId } from "../../../shared/ids.ts";
import { now } from "../clock.ts";
import { ConflictError, NotFoundError } from "../errors.ts";
import { emailKey, LAST_ADMIN, noOperator, operatorTarget, revokes } from "../rules/operators.ts";
import { appendAudit } from "./audit.ts";
import type { Operator, OperatorStore } from "../types/operators.ts";
import { isUniqueViolation, type Sql, type Tx, write } from "./open.ts";

type AccountRow = { id: string; email: string; role: Role; disabled: boolean; created_at: string };
const accountOf = (r: AccountRow): OperatorAccount => ({
  _id: r.id,
  email: r.email,
  role: r.role,
  disabled: r.disabled,
  createdAt: r.created_at,
});

async function findOperator(tx: Tx, email: string): Promise<Operator | null> {
  const rows = await tx`SELECT id, email, password_hash, password_version, role, disabled FROM operators
    WHERE email_key = ${emailKey(email)}`;
  if (!rows.length) return null;
  const r = rows[0];
  return {
    id: r.id,
    email: r.email,
    passwordHash: r.password_hash,
    passwordVersion: Number(r.password_version),
    role: r.role,
    disabled: r.disabled,
  };
}

async function account(tx: Tx, id: string): Promise<OperatorAccount | null> {
  const rows = await tx`SELECT id, email, role, disabled, created_at FROM operators WHERE id = ${id}`;
  return rows.length ? accountOf(rows[0] as unknown as AccountRow) : null;
}

const countOperators = async (tx: Tx) => Number((await tx`SELECT count(*) AS n FROM operators`)[0].n);

async function insertOperator(tx: Tx, email: string, passwordHash: string, role: Role): Promise<OperatorAccount> {
  const t = now();
  const id = newId();
  try {
    await tx`INSERT INTO operators (id, email, email_key, password_hash, role, created_at, updated_at)
      VALUES (${id}, ${email.trim()}, ${emailKey(email)}, ${passwordHash}, ${role}, ${t}, ${t})`;
  } catch (err) {
    if (isUniqueViolation(err)) throw new ConflictError(`Operator ${email.trim()} exists already.`);
    throw err;
  }
  const added = (await account(tx, id))!;
  await appendAudit(tx, { action: "operator.create", target: operatorTarget(added), details: { role } });
  return added;
}

export function postgresOperators(sql: Sql): OperatorStore {
  return {
    find: (email) => findOperator(sql, email),
    // One indexed row read per request, from the primary: a password change made through any replica is seen by the
    // next request (docs/DECISIONS.md, "PostgreSQL": chosen over a LISTEN/NOTIFY-invalidated cache, which would save
    // this round trip at the price of a window while the listener reconnects).
    current: (email) => findOperator(sql, email),
    count: () => countOperators(sql),
    add: (email, passwordHash, role) => write(sql, (tx) => insertOperator(tx, email, passwordHash, role)),
    addFirst: (email, passwordHash) =>
      write(sql, async (tx) => {
        if (await countOperators(tx) > 0) return false;
        await insertOperator(tx, email, passwordHash, "admin");
        return true;
      }),
    list: async () =>
      (await sql`SELECT id, email, role, disabled, created_at FROM operators ORDER BY created_at, id`).map((r) =>
        accountOf(r as unknown as AccountRow)
      ),
    // Under the write lock: two admins demoting each other at once cannot both pass the last-admin check.
    update: (id, patch) =>
      write(sql, async (tx) => {
        const before = await account(tx, id);
        if (!before) throw new NotFoundError(noOperator(id));
        const role = patch.role ?? before.role;
        const disabled = patch.disabled ?? before.disabled;
        if (before.role === "admin" && !before.disabled && (role !== "admin" || disabled)) {
          const others = await tx`SELECT count(*) AS n FROM operators
            WHERE role = 'admin' AND NOT disabled AND id <> ${id}`;
          if (Number(others[0].n) === 0) throw new ConflictError(LAST_ADMIN);
        }
        await tx`UPDATE operators SET role = ${role}, disabled = ${disabled},
          password_version = password_version + ${revokes(before, patch) ? 1 : 0}, updated_at = ${now()}
          WHERE id = ${id}`;
        const after = (await account(tx, id))!;
        await appendAudit(tx, {
          action: "operator.update",
          target: operatorTarget(after),
          details: { changes: patch, before: { role: before.role, disabled: before.disabled } },
        });
        return after;
      }),
    resetPassword: (id, passwordHash) =>
      write(sql, async (tx) => {
        const r = await tx`UPDATE operators SET password_hash = ${passwordHash},
          password_version = password_version + 1, updated_at = ${now()} WHERE id = ${id}`;
        if (r.count === 0) throw new NotFoundError(noOperator(id));
        const after = (await account(tx, id))!;
        await appendAudit(tx, { action: "operator.reset_password", target: operatorTarget(after) });
        return after;
      }),
    setPassword: (email, passwordHash) =>
      write(sql, async (tx) => {
        const r = await tx`UPDATE operators SET password_hash = ${passwordHash},
          password_version = password_version + 1, updated_at = ${now()} WHERE email_key = ${emailKey(email)}
          RETURNING id, email`;
        if (r.count === 0) return false;
        await appendAudit(tx, {
          action: "auth.password_change",
          target: operatorTarget(r[0] as { id: string; email: string }),
        });
        return true;
      }),
  };
}
