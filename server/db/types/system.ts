/** What the server needs of the database as a whole: its health, the shared secret, and start-up done once. */
export interface SystemStore {
  /** Resolves when the database answers; rejects (StoreUnavailableError on PostgreSQL) when it does not. */
  ping(): Promise<void>;
  /**
   * The token-signing secret kept in the database, created from `fresh` by the first caller (every replica then signs
   * alike); null when the engine keeps it elsewhere (SQLite: DATA_DIR/jwt_secret, as before).
   */
  sharedSecret(fresh: string): Promise<string | null>;
  /**
   * Runs fn while no other process on the database runs an `exclusive` fn: start-up steps that must happen once
   * however many replicas start together (the first operator, the device type, the demo seed).
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
}
