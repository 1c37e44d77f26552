import type { ApiToken } from "../../../shared/schemas/api_token.ts";
import { MAX_TOKENS_PER_OWNER } from "../../../shared/schemas/api_token.ts";
import type { Role } from "../../../shared/schemas/operator.ts";
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
import { noOperator } from "../rules/operators.ts";
import type { ApiTokenAuth, ApiTokenStore } from "../types/api_tokens.ts";
import { all, type Engine, one, type Q, run, storeOf, write } from "../runner.ts";
import { appendAudit } from "./audit.ts";
import { withDevicesVersion } from "./operators.ts";

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

const TOKEN_COLUMNS =
  "t.id, t.name, t.scopes, t.created_at, t.expires_at, t.last_used_at, o.email AS owner, t.owner_id";

type CurrentRow = Row & { password_hash: string; password_version: number; role: Role; disabled: number | boolean };
const CURRENT_COLUMNS = `${TOKEN_COLUMNS}, o.password_hash, o.password_version, o.role, o.disabled`;
const CURRENT_WITH_DEVICES_VERSION = withDevicesVersion(
  CURRENT_COLUMNS,
  "LEFT JOIN (api_tokens t JOIN operators o ON o.id = t.owner_id) ON t.secret_hash = ?",
);

function authOf(r: CurrentRow): ApiTokenAuth {
  return {
    token: tokenOf(r),
    owner: {
      id: r.owner_id,
      email: r.owner,
      passwordHash: r.password_hash,
      passwordVersion: Number(r.password_version),
      role: r.role,
      disabled: !!r.disabled,
    },
  };
}

function* byId(id: string): Q<Row | undefined> {
  return yield* one<Row>(
    `SELECT ${TOKEN_COLUMNS} FROM api_tokens t JOIN operators o ON o.id = t.owner_id WHERE t.id = ?`,
    id,
  );
}

export function apiTokenStore(engine: Engine): ApiTokenStore {
  return storeOf<ApiTokenStore>(engine, {
    // Under the write lock: the owner's role is read in the transaction that adds the token.
    create: (ownerId, input, secretHash) =>
      write(function* () {
        const owner = yield* one<{ role: Role; disabled: number | boolean }>(
          "SELECT role, disabled FROM operators WHERE id = ?",
          ownerId,
        );
        if (!owner || owner.disabled) throw new NotFoundError(noOperator(ownerId));
        const beyond = scopesBeyondRole(owner.role, input.scopes);
        if (beyond) throw new ForbiddenError(beyond);
        const held = yield* one<{ n: number }>("SELECT count(*) AS n FROM api_tokens WHERE owner_id = ?", ownerId);
        if (Number(held!.n) >= MAX_TOKENS_PER_OWNER) throw new ConflictError(TOO_MANY);
        const id = newId();
        yield* run(
          `INSERT INTO api_tokens (id, owner_id, name, scopes, secret_hash, created_at, expires_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
          id,
          ownerId,
          input.name,
          storedScopes(input.scopes),
          secretHash,
          now(),
          input.expiresAt,
        );
        const token = tokenOf((yield* byId(id))!);
        yield* appendAudit({
          action: "api_token.create",
          target: apiTokenTarget(token),
          details: apiTokenDetails(token),
        });
        return token;
      }),
    *list(ownerId) {
      const rows = ownerId === null
        ? yield* all<Row>(
          `SELECT ${TOKEN_COLUMNS} FROM api_tokens t JOIN operators o ON o.id = t.owner_id
           ORDER BY t.created_at DESC, t.id`,
        )
        : yield* all<Row>(
          `SELECT ${TOKEN_COLUMNS} FROM api_tokens t JOIN operators o ON o.id = t.owner_id WHERE t.owner_id = ?
           ORDER BY t.created_at DESC, t.id`,
          ownerId,
        );
      return rows.map(tokenOf);
    },
    revoke: (id, by) =>
      write(function* () {
        const found = yield* byId(id);
        if (!found) throw new NotFoundError(noToken(id));
        if (found.owner_id !== by.operatorId && !by.admin) throw new ForbiddenError(NOT_YOURS);
        yield* run("DELETE FROM api_tokens WHERE id = ?", id);
        const token = tokenOf(found);
        yield* appendAudit({
          action: "api_token.revoke",
          target: apiTokenTarget(token),
          details: apiTokenDetails(token),
        });
        return token;
      }),
    // One indexed row and its owner on every request (currentWithDevicesVersion, on PostgreSQL from the primary): a
    // revocation or a disabling committed through any process or replica is seen by the next request.
    *current(secretHash) {
      const r = yield* one<CurrentRow>(
        `SELECT ${CURRENT_COLUMNS} FROM api_tokens t JOIN operators o ON o.id = t.owner_id WHERE t.secret_hash = ?`,
        secretHash,
      );
      return r ? authOf(r) : null;
    },
    *currentWithDevicesVersion(secretHash) {
      const r = (yield* one<CurrentRow & { id: string | null; devices_version: number }>(
        CURRENT_WITH_DEVICES_VERSION,
        secretHash,
      ))!;
      return { found: r.id === null ? null : authOf(r), devicesVersion: Number(r.devices_version) };
    },
    // No transaction: a conditional one-row update that decides nothing else; at most one process's write lands.
    *touch(id, at, notBefore) {
      yield* run(
        "UPDATE api_tokens SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)",
        at,
        id,
        notBefore,
      );
    },
  });
}
