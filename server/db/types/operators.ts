import type { OperatorAccount, Role } from "../../../shared/schemas/operator.ts";

export interface Operator {
  id: string;
  email: string;
  passwordHash: string;
  /** Bumped by every password change, demotion and disabling; tokens carry it (pwv), so each ends earlier tokens. */
  passwordVersion: number;
  role: Role;
  /** A disabled operator cannot sign in, and their tokens stopped working when they were disabled. */
  disabled: boolean;
}

export interface OperatorStore {
  /** By e-mail, ignoring case and surrounding spaces. */
  find(email: string): Promise<Operator | null>;
  /**
   * The operator a token names, as of now: called on every operator request. It must reflect a password change
   * committed by any process (`deno task user`, another server) before it answers, and stay cheap.
   * SQLite reads its local file each time (microseconds); PostgreSQL reads the row each time too (one indexed row,
   * a fraction of a millisecond), so no replica can hold a stale operator.
   */
  current(email: string): Promise<Operator | null>;
  /**
   * current() and the devices' change counter (devices.version()) read by one statement: one round trip on PostgreSQL,
   * one read of the file on SQLite. The operator middleware calls this on every request, and GET devices' page cache
   * takes the counter from it instead of reading it again (docs/DECISIONS.md, "The fixed work of a request").
   */
  currentWithDevicesVersion(email: string): Promise<{ operator: Operator | null; devicesVersion: number }>;
  count(): Promise<number>;
  /** ConflictError when an operator with this e-mail exists. */
  add(email: string, passwordHash: string, role: Role): Promise<OperatorAccount>;
  /** Adds the operator, as an admin, only while there is none at all (start-up bootstrap); false when one exists. */
  addFirst(email: string, passwordHash: string): Promise<boolean>;
  /** Every account, oldest first. */
  list(): Promise<OperatorAccount[]>;
  /**
   * Changes a role or the disabled flag in one transaction. A demotion or a disabling bumps the password version (their
   * tokens end at once). NotFoundError for an unknown id; ConflictError when it would leave no active admin.
   */
  update(id: string, patch: { role?: Role; disabled?: boolean }): Promise<OperatorAccount>;
  /** Sets a password by id and bumps the version; NotFoundError for an unknown id. */
  resetPassword(id: string, passwordHash: string): Promise<OperatorAccount>;
  /** Sets a new hash and bumps the password version; false when there is no such operator. */
  setPassword(email: string, passwordHash: string): Promise<boolean>;
}
