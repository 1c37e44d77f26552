export interface Operator {
  id: string;
  email: string;
  passwordHash: string;
  /** Bumped by every password change; tokens carry it (pwv), so a change ends every earlier token. */
  passwordVersion: number;
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
  count(): Promise<number>;
  /** ConflictError when an operator with this e-mail exists. */
  add(email: string, passwordHash: string): Promise<void>;
  /** Adds the operator only while there is none at all (start-up bootstrap); false when one exists. */
  addFirst(email: string, passwordHash: string): Promise<boolean>;
  /** Sets a new hash and bumps the password version; false when there is no such operator. */
  setPassword(email: string, passwordHash: string): Promise<boolean>;
}
