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
import { type Sql, type Tx, write } from "./open.ts";

type Row = {
  id: string;
  name: string;
  scopes: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  owner: string;
  owner_id: string;
};
const tokenOf = (r: Row): ApiToken => ({
  _id: r.id,
  name: r.name,
  scopes: parseScopes(r.scopes),
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  lastUsedAt: r.last_used_at,
  owner: r.owner,
});

async function byId(tx: Tx, id: string): Promise<Row | null> {
  const rows = await tx`SELECT t.id, t.name, t.scopes, t.created_at, t.expires_at, t.last_used_at, o.email AS owner,
      t.owner_id FROM api_tokens t JOIN operators o ON o.id = t.owner_id WHERE t.id = ${id}`;
  return rows.length ? rows[0] as unknown as Row : null;
}

export function postgresApiTokens(sql: Sql): ApiTokenStore {
  return {
    // Under the write lock: the owner's role is read in the transaction that adds the token.
    create: (ownerId, input, secretHash) =>
      write(sql, async (tx) => {
        const owners = await tx`SELECT role, disabled FROM operators WHERE id = ${ownerId}`;
        if (!owners.length || owners[0].disabled) throw new NotFoundError(noOperator(ownerId));
        const beyond = scopesBeyondRole(owners[0].role, input.scopes);
        if (beyond) throw new ForbiddenError(beyond);
        const [{ n }] = await tx`SELECT count(*) AS n FROM api_tokens WHERE owner_id = ${ownerId}`;
        if (Number(n) >= MAX_TOKENS_PER_OWNER) throw new ConflictError(TOO_MANY);
        const id = newId();
        await tx`INSERT INTO api_tokens (id, owner_id, name, scopes, secret_hash, created_at, expires_at)
          VALUES (${id}, ${ownerId}, ${input.name}, ${storedScopes(input.scopes)}, ${secretHash}, ${now()},
            ${input.expiresAt})`;
        const token = tokenOf((await byId(tx, id))!);
        await appendAudit(tx, {
          action: "api_token.create",
          target: apiTokenTarget(token),
          details: apiTokenDetails(token),
        });
        return token;
      }),
    list: async (ownerId) =>
      (ownerId === null
        ? await sql`SELECT t.id, t.name, t.scopes, t.created_at, t.expires_at, t.last_used_at, o.email AS owner
            FROM api_tokens t JOIN operators o ON o.id = t.owner_id ORDER BY t.created_at DESC, t.id`
        : await sql`SELECT t.id, t.name, t.scopes, t.created_at, t.expires_at, t.last_used_at, o.email AS owner
            FROM api_tokens t JOIN operators o ON o.id = t.owner_id WHERE t.owner_id = ${ownerId}
            ORDER BY t.created_at DESC, t.id`).map((r) => tokenOf(r as unknown as Row)),
    revoke: (id, by) =>
      write(sql, async (tx) => {
        const found = await byId(tx, id);
        if (!found) throw new NotFoundError(noToken(id));
        if (found.owner_id !== by.operatorId && !by.admin) throw new ForbiddenError(NOT_YOURS);
        await tx`DELETE FROM api_tokens WHERE id = ${id}`;
        const token = tokenOf(found);
        await appendAudit(tx, {
          action: "api_token.revoke",
          target: apiTokenTarget(token),
          details: apiTokenDetails(token),
        });
        return token;
      }),
    // One indexed row and its owner from the primary on every request (as operators.current): a revocation or a
    // disabling committed through any replica is seen by the next request.
    current: async (secretHash) => {
      const rows = await sql`SELECT t.id, t.name, t.scopes, t.created_at, t.expires_at, t.last_used_at,
          o.email AS owner, t.owner_id, o.password_hash, o.password_version, o.role, o.disabled
        FROM api_tokens t JOIN operators o ON o.id = t.owner_id WHERE t.secret_hash = ${secretHash}`;
      if (!rows.length) return null;
      const r = rows[0];
      return {
        token: tokenOf(r as unknown as Row),
        owner: {
          id: r.owner_id,
          email: r.owner,
          passwordHash: r.password_hash,
          passwordVersion: Number(r.password_version),
          role: r.role,
          disabled: r.disabled,
        },
      };
    },
    // No write lock: a conditional one-row update that decides nothing else; at most one replica's write lands.
    touch: async (id, at, notBefore) => {
      await sql`UPDATE api_tokens SET last_used_at = ${at}
        WHERE id = ${id} AND (last_used_at IS NULL OR last_used_at < ${notBefore})`;
    },
  };
}
