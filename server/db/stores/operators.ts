import type { OperatorAccount, Role } from "../../../shared/schemas/operator.ts";
import { newId } from "../../../shared/ids.ts";
import { now } from "../clock.ts";
import { ConflictError, NotFoundError } from "../errors.ts";
import { emailKey, LAST_ADMIN, noOperator, operatorTarget, revokes } from "../rules/operators.ts";
import type { Operator, OperatorStore } from "../types/operators.ts";
import { all, dialect, type Engine, one, type Q, run, storeOf, write } from "../runner.ts";
import { appendAudit } from "./audit.ts";

/** `disabled` is 0/1 on SQLite, a boolean on PostgreSQL. */
type AccountRow = { id: string; email: string; role: Role; disabled: number | boolean; created_at: string };
const ACCOUNT_COLUMNS = "id, email, role, disabled, created_at";
const accountOf = (r: AccountRow): OperatorAccount => ({
  _id: r.id,
  email: r.email,
  role: r.role,
  disabled: !!r.disabled,
  createdAt: r.created_at,
});

interface OperatorRow {
  id: string;
  email: string;
  password_hash: string;
  password_version: number;
  role: Role;
  disabled: number | boolean;
}

const OPERATOR_COLUMNS = "o.id, o.email, o.password_hash, o.password_version, o.role, o.disabled";

function* findOperator(email: string): Q<Operator | null> {
  const r = yield* one<OperatorRow>(
    `SELECT ${OPERATOR_COLUMNS} FROM operators o WHERE o.email_key = ?`,
    emailKey(email),
  );
  return r ? operatorOf(r) : null;
}

/**
 * The devices' change counter with the rows of `join` (a LEFT JOIN, its ON condition naming the row) beside it: one
 * row whether or not the joined row exists.
 */
export const withDevicesVersion = (columns: string, join: string) =>
  `SELECT c.value AS devices_version, ${columns} FROM change_counters c ${join} WHERE c.name = 'devices'`;

const CURRENT_WITH_DEVICES_VERSION = withDevicesVersion(OPERATOR_COLUMNS, "LEFT JOIN operators o ON o.email_key = ?");

function* findWithDevicesVersion(email: string): Q<{ operator: Operator | null; devicesVersion: number }> {
  const r = (yield* one<OperatorRow & { id: string | null; devices_version: number }>(
    CURRENT_WITH_DEVICES_VERSION,
    emailKey(email),
  ))!;
  return { operator: r.id === null ? null : operatorOf(r), devicesVersion: Number(r.devices_version) };
}

function operatorOf(r: OperatorRow): Operator {
  return {
    id: r.id,
    email: r.email,
    passwordHash: r.password_hash,
    passwordVersion: Number(r.password_version),
    role: r.role,
    disabled: !!r.disabled,
  };
}

function* account(id: string): Q<OperatorAccount | null> {
  const row = yield* one<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM operators WHERE id = ?`, id);
  return row ? accountOf(row) : null;
}

function* countOperators(): Q<number> {
  return Number((yield* one<{ n: number }>("SELECT count(*) AS n FROM operators"))!.n);
}

function* insertOperator(email: string, passwordHash: string, role: Role): Q<OperatorAccount> {
  const d = yield* dialect();
  const t = now();
  const id = newId();
  try {
    yield* run(
      `INSERT INTO operators (id, email, email_key, password_hash, role, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
      id,
      email.trim(),
      emailKey(email),
      passwordHash,
      role,
      t,
      t,
    );
  } catch (err) {
    if (d.isUniqueViolation(err)) throw new ConflictError(`Operator ${email.trim()} exists already.`);
    throw err;
  }
  const added = (yield* account(id))!;
  yield* appendAudit({ action: "operator.create", target: operatorTarget(added), details: { role } });
  return added;
}

export function operatorStore(engine: Engine): OperatorStore {
  return storeOf<OperatorStore>(engine, {
    find: findOperator,
    current: findOperator,
    // One indexed row read per request, with the devices' counter (on PostgreSQL from the primary): a password change
    // made through any process or replica is seen by the next request (docs/DECISIONS.md, "PostgreSQL": chosen over a
    // LISTEN/NOTIFY-invalidated cache, which would save this round trip at the price of a window while the listener
    // reconnects). On SQLite the answer is kept per credential while nothing it reads changed
    // (sqlite/remembered_credentials.ts: one process owns the file; a commit by any other connection is seen as well).
    currentWithDevicesVersion: findWithDevicesVersion,
    count: countOperators,
    add: (email, passwordHash, role) => write(() => insertOperator(email, passwordHash, role)),
    addFirst: (email, passwordHash) =>
      write(function* () {
        if ((yield* countOperators()) > 0) return false;
        yield* insertOperator(email, passwordHash, "admin");
        return true;
      }),
    *list() {
      const d = yield* dialect();
      const rows = yield* all<AccountRow>(
        `SELECT ${ACCOUNT_COLUMNS} FROM operators ORDER BY created_at, ${d.tieBreak("operators")}`,
      );
      return rows.map(accountOf);
    },
    // Under the write lock: two admins demoting each other at once cannot both pass the last-admin check.
    update: (id, patch) =>
      write(function* () {
        const d = yield* dialect();
        const before = yield* account(id);
        if (!before) throw new NotFoundError(noOperator(id));
        const role = patch.role ?? before.role;
        const disabled = patch.disabled ?? before.disabled;
        if (before.role === "admin" && !before.disabled && (role !== "admin" || disabled)) {
          const others = yield* one<{ n: number }>(
            `SELECT count(*) AS n FROM operators WHERE role = 'admin' AND ${d.isFalse("disabled")} AND id <> ?`,
            id,
          );
          if (Number(others!.n) === 0) throw new ConflictError(LAST_ADMIN);
        }
        yield* run(
          `UPDATE operators SET role = ?, disabled = ?, password_version = password_version + ?, updated_at = ?
           WHERE id = ?`,
          role,
          d.bool(disabled),
          revokes(before, patch) ? 1 : 0,
          now(),
          id,
        );
        const after = (yield* account(id))!;
        yield* appendAudit({
          action: "operator.update",
          target: operatorTarget(after),
          details: { changes: patch, before: { role: before.role, disabled: before.disabled } },
        });
        return after;
      }),
    resetPassword: (id, passwordHash) =>
      write(function* () {
        const changed = yield* run(
          "UPDATE operators SET password_hash = ?, password_version = password_version + 1, updated_at = ? WHERE id = ?",
          passwordHash,
          now(),
          id,
        );
        if (changed === 0) throw new NotFoundError(noOperator(id));
        const after = (yield* account(id))!;
        yield* appendAudit({ action: "operator.reset_password", target: operatorTarget(after) });
        return after;
      }),
    setPassword: (email, passwordHash) =>
      write(function* () {
        const row = yield* one<{ id: string; email: string }>(
          `UPDATE operators SET password_hash = ?, password_version = password_version + 1, updated_at = ?
           WHERE email_key = ? RETURNING id, email`,
          passwordHash,
          now(),
          emailKey(email),
        );
        if (!row) return false;
        yield* appendAudit({ action: "auth.password_change", target: operatorTarget(row) });
        return true;
      }),
  });
}
