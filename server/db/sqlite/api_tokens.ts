import type { ApiToken } from "../../../shared/schemas/api_token.ts";
import { MAX_TOKENS_PER_OWNER } from "../../../shared/schemas/api_token.ts";
import { newId } from "../../../shared/ids.ts";
import { now } from "../clock.ts";
import { ConflictError, ForbiddenError, NotFoundError } from "../errors.ts";
import {
  apiTokenDetails,
  apiTokenTarget,
  NOT_YOURS,
  noToken,
  parseScopes,
  scopesBeyondRole,
  storedScopes,
  TOO_MANY,
} from "../rules/api_tokens.ts";
import { appendAudit } from "./audit.ts";
import { noOperator } from "../rules/operators.ts";
import type { ApiTokenStore } from "../types/api_tokens.ts";
import type { Role } from "../../../shared/schemas/operator.ts";
import { type Db, sql, transaction } from "./open.ts";
import { promised } from "./promised.ts";

const TOKEN_COLUMNS = `t.id AS _id, t.name, t.scopes, t.created_at AS createdAt, t.expires_at AS expiresAt,
  t.last_used_at AS lastUsedAt, o.email AS owner`;
type TokenRow = Omit<ApiToken, "scopes"> & { scopes: string };
const tokenOf = (r: TokenRow): ApiToken => ({ ...r, scopes: parseScopes(r.scopes) });

function byId(db: Db, id: string): (ApiToken & { ownerId: string }) | null {
  const row = sql(
    db,
    `SELECT ${TOKEN_COLUMNS}, t.owner_id AS ownerId FROM api_tokens t JOIN operators o ON o.id = t.owner_id
     WHERE t.id = ?`,
  ).get(id) as (TokenRow & { ownerId: string }) | undefined;
  return row ? { ...tokenOf(row), ownerId: row.ownerId } : null;
}

export function sqliteApiTokens(db: Db): ApiTokenStore {
  return promised<ApiTokenStore>({
    create: (ownerId, input, secretHash) =>
      transaction(db, () => {
        const owner = sql(db, "SELECT role, disabled FROM operators WHERE id = ?").get(ownerId) as
          | { role: Role; disabled: number }
          | undefined;
        if (!owner || owner.disabled) throw new NotFoundError(noOperator(ownerId));
        const beyond = scopesBeyondRole(owner.role, input.scopes);
        if (beyond) throw new ForbiddenError(beyond);
        const held = sql(db, "SELECT count(*) AS n FROM api_tokens WHERE owner_id = ?").get(ownerId) as { n: number };
        if (held.n >= MAX_TOKENS_PER_OWNER) throw new ConflictError(TOO_MANY);
        const id = newId();
        sql(
          db,
          `INSERT INTO api_tokens (id, owner_id, name, scopes, secret_hash, created_at, expires_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        ).run(id, ownerId, input.name, storedScopes(input.scopes), secretHash, now(), input.expiresAt);
        const { ownerId: _, ...token } = byId(db, id)!;
        appendAudit(db, { action: "api_token.create", target: apiTokenTarget(token), details: apiTokenDetails(token) });
        return token;
      }),
    list: (ownerId) =>
      (sql(
        db,
        `SELECT ${TOKEN_COLUMNS} FROM api_tokens t JOIN operators o ON o.id = t.owner_id
         ${ownerId === null ? "" : "WHERE t.owner_id = ?"} ORDER BY t.created_at DESC, t.id`,
      ).all(...(ownerId === null ? [] : [ownerId])) as TokenRow[]).map(tokenOf),
    revoke: (id, by) =>
      transaction(db, () => {
        const found = byId(db, id);
        if (!found) throw new NotFoundError(noToken(id));
        if (found.ownerId !== by.operatorId && !by.admin) throw new ForbiddenError(NOT_YOURS);
        sql(db, "DELETE FROM api_tokens WHERE id = ?").run(id);
        const { ownerId: _, ...token } = found;
        appendAudit(db, { action: "api_token.revoke", target: apiTokenTarget(token), details: apiTokenDetails(token) });
        return token;
      }),
    // One indexed row and its owner, read from the local file on every request: a revocation is seen at once.
    current: (secretHash) => {
      const row = sql(
        db,
        `SELECT ${TOKEN_COLUMNS}, o.id AS ownerId, o.password_hash AS passwordHash,
           o.password_version AS passwordVersion, o.role, o.disabled
         FROM api_tokens t JOIN operators o ON o.id = t.owner_id WHERE t.secret_hash = ?`,
      ).get(secretHash) as
        | (TokenRow & { ownerId: string; passwordHash: string; passwordVersion: number; role: Role; disabled: number })
        | undefined;
      if (!row) return null;
      const { ownerId, passwordHash, passwordVersion, role, disabled, ...token } = row;
      return {
        token: tokenOf(token),
        owner: { id: ownerId, email: token.owner, passwordHash, passwordVersion, role, disabled: disabled === 1 },
      };
    },
    touch: (id, at, notBefore) => {
      sql(db, "UPDATE api_tokens SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)")
        .run(at, id, notBefore);
    },
  });
}
