import type { ReleaseKey, ReleaseKeyAlgorithm } from "../../../shared/schemas/release_key.ts";

/** A key as the service parsed it (server/auth/release_signatures.ts): the store keeps it as given. */
export interface NewReleaseKeyRow {
  name: string;
  algorithm: ReleaseKeyAlgorithm;
  publicKey: string;
  fingerprint: string;
  /** The registering admin's e-mail. */
  createdBy: string;
}

/**
 * Release keys (docs/REQUIREMENTS.md §20): registered by admins, revoked but never deleted, so a firmware keeps naming
 * the key that signed it and a key is never registered twice.
 */
export interface ReleaseKeyStore {
  /** Every key, revoked ones included, oldest first. */
  list(): Promise<ReleaseKey[]>;
  get(id: string): Promise<ReleaseKey | null>;
  /** The keys that verify new uploads (not revoked), oldest first. */
  active(): Promise<ReleaseKey[]>;
  /** Registers a key with its audit entry: ConflictError for a name (ignoring case) or a key registered already. */
  create(key: NewReleaseKeyRow): Promise<ReleaseKey>;
  /** Revokes a key for good, with its audit entry: NotFoundError, ConflictError when it is revoked already. */
  revoke(id: string, by: string): Promise<ReleaseKey>;
}
