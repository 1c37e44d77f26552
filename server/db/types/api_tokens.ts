import type { ApiToken, Scope } from "../../../shared/schemas/api_token.ts";
import type { Operator } from "./operators.ts";

/** A token as a request presents it: the row and its owner as they are now. */
export interface ApiTokenAuth {
  token: ApiToken;
  owner: Operator;
}

/** Who manages tokens: an operator sees and revokes their own; an admin everyone's. */
export interface TokenManager {
  operatorId: string;
  admin: boolean;
}

export interface ApiTokenStore {
  /**
   * Adds a token for `ownerId` stored only under `secretHash` (the secret itself is never stored), in one transaction
   * that reads the owner's current role: ForbiddenError when a scope is beyond it; ConflictError beyond
   * MAX_TOKENS_PER_OWNER; NotFoundError for an unknown or disabled owner.
   */
  create(
    ownerId: string,
    input: { name: string; scopes: Scope[]; expiresAt: string | null },
    secretHash: string,
  ): Promise<ApiToken>;
  /** Newest first: the tokens of `ownerId`, or every token when it is null. */
  list(ownerId: string | null): Promise<ApiToken[]>;
  /**
   * Removes a token in one transaction: NotFoundError when unknown, ForbiddenError when it is another operator's and
   * the manager is no admin. Answers the token as it was.
   */
  revoke(id: string, by: TokenManager): Promise<ApiToken>;
  /**
   * The token stored under `secretHash` and its owner, read on every request presenting one (like operators.current):
   * a revocation or an owner's disabling committed by any process is seen by the next request. Expiry is the caller's
   * to check. Null when there is no such token.
   */
  current(secretHash: string): Promise<ApiTokenAuth | null>;
  /** current() and the devices' change counter in one statement, as operators.currentWithDevicesVersion(). */
  currentWithDevicesVersion(secretHash: string): Promise<{ found: ApiTokenAuth | null; devicesVersion: number }>;
  /** Sets lastUsedAt to `at` unless it is already at or after `notBefore` (so a busy token writes about once a minute). */
  touch(id: string, at: string, notBefore: string): Promise<void>;
}
