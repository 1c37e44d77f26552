import { MAX_SAVED_VIEWS, type SavedViewQuery } from "../../../shared/schemas/saved_view.ts";
import { newId } from "../../../shared/ids.ts";
import { now } from "../clock.ts";
import { ConflictError, NotFoundError } from "../errors.ts";
import { noOperator } from "../rules/operators.ts";
import {
  checkChange,
  preferencesOf,
  storedQuery,
  TOO_MANY_VIEWS,
  viewDetails,
  viewNameKey,
  viewNameTaken,
  viewOf,
  type ViewRow,
  viewTarget,
} from "../rules/saved_views.ts";
import type { SavedViewStore } from "../types/saved_views.ts";
import { appendAudit } from "./audit.ts";
import { keyed, type Sql, type Tx } from "./open.ts";

type Row = {
  id: string;
  owner_id: string;
  owner: string;
  name: string;
  query: string;
  shared: boolean;
  created_at: string;
  updated_at: string;
};
const rowOf = (r: Row): ViewRow => ({
  id: r.id,
  ownerId: r.owner_id,
  owner: r.owner,
  name: r.name,
  query: r.query,
  shared: r.shared,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

async function byId(tx: Tx, id: string): Promise<ViewRow | null> {
  const rows = await tx`SELECT v.id, v.owner_id, o.email AS owner, v.name, v.query, v.shared, v.created_at,
      v.updated_at FROM saved_views v JOIN operators o ON o.id = v.owner_id WHERE v.id = ${id}`;
  return rows.length ? rowOf(rows[0] as unknown as Row) : null;
}

async function nameTaken(tx: Tx, ownerId: string, name: string, except: string | null): Promise<boolean> {
  const rows = await tx`SELECT 1 FROM saved_views WHERE owner_id = ${ownerId} AND name_key = ${viewNameKey(name)}
    AND id IS DISTINCT FROM ${except}`;
  return rows.length > 0;
}

async function ensureOperator(tx: Tx, operatorId: string) {
  const rows = await tx`SELECT 1 FROM operators WHERE id = ${operatorId}`;
  if (!rows.length) throw new NotFoundError(noOperator(operatorId));
}

async function preferencesRow(tx: Tx, operatorId: string) {
  const rows = await tx`SELECT device_columns FROM operator_preferences WHERE operator_id = ${operatorId}`;
  return preferencesOf(rows.length ? rows[0].device_columns : null);
}

/**
 * Saved views on PostgreSQL. A view's checks (name, count) concern its owner only: each change is serialized with the
 * owner's other changes (a lock keyed by the owner), not behind the database's write lock (an import's publish).
 */
export function postgresSavedViews(sql: Sql): SavedViewStore {
  const owned = <T>(ownerId: string, fn: (tx: Tx) => Promise<T>) => keyed(sql, `saved_views:${ownerId}`, fn);
  return {
    list: async (operatorId) =>
      (await sql`SELECT v.id, v.owner_id, o.email AS owner, v.name, v.query, v.shared, v.created_at, v.updated_at
        FROM saved_views v JOIN operators o ON o.id = v.owner_id
        WHERE v.owner_id = ${operatorId} OR v.shared ORDER BY v.name_key, o.email COLLATE "C", v.id`)
        .map((r) => viewOf(rowOf(r as unknown as Row))),
    create: (operatorId, input) =>
      owned(operatorId, async (tx) => {
        await ensureOperator(tx, operatorId);
        const [{ n }] = await tx`SELECT count(*) AS n FROM saved_views WHERE owner_id = ${operatorId}`;
        if (Number(n) >= MAX_SAVED_VIEWS) throw new ConflictError(TOO_MANY_VIEWS);
        if (await nameTaken(tx, operatorId, input.name, null)) throw new ConflictError(viewNameTaken(input.name));
        const id = newId();
        const at = now();
        await tx`INSERT INTO saved_views (id, owner_id, name, name_key, query, shared, created_at, updated_at)
          VALUES (${id}, ${operatorId}, ${input.name}, ${viewNameKey(input.name)}, ${storedQuery(input.query)},
            ${input.shared}, ${at}, ${at})`;
        return viewOf((await byId(tx, id))!);
      }),
    update: async (id, by, patch) => {
      // The owner is known only once the row is read: lock by the caller (only the owner may change a view).
      return await owned(by.operatorId, async (tx) => {
        const row = checkChange(await byId(tx, id), id, by, "change");
        const name = patch.name ?? row.name;
        if (patch.name !== undefined && await nameTaken(tx, row.ownerId, name, id)) {
          throw new ConflictError(viewNameTaken(name));
        }
        const query = patch.query !== undefined ? storedQuery(patch.query as SavedViewQuery) : row.query;
        const shared = patch.shared ?? row.shared;
        await tx`UPDATE saved_views SET name = ${name}, name_key = ${viewNameKey(name)}, query = ${query},
          shared = ${shared}, updated_at = ${now()} WHERE id = ${id}`;
        return viewOf((await byId(tx, id))!);
      });
    },
    remove: (id, by) =>
      sql.begin(async (tx) => {
        const row = checkChange(await byId(tx, id), id, by, "delete");
        const gone = await tx`DELETE FROM saved_views WHERE id = ${id} RETURNING id`;
        if (!gone.length) throw new NotFoundError(`No saved view with id ${id}.`);
        const view = viewOf(row);
        if (row.ownerId !== by.operatorId) {
          await appendAudit(tx, { action: "saved_view.delete", target: viewTarget(view), details: viewDetails(view) });
        }
        return view;
      }) as Promise<ReturnType<typeof viewOf>>,
    preferences: (operatorId) => preferencesRow(sql, operatorId),
    setPreferences: (operatorId, patch) =>
      owned(operatorId, async (tx) => {
        await ensureOperator(tx, operatorId);
        if (patch.deviceColumns !== undefined) {
          const columns = patch.deviceColumns === null ? null : JSON.stringify(patch.deviceColumns);
          await tx`INSERT INTO operator_preferences (operator_id, device_columns) VALUES (${operatorId}, ${columns})
            ON CONFLICT (operator_id) DO UPDATE SET device_columns = excluded.device_columns`;
        }
        return await preferencesRow(tx, operatorId);
      }),
  };
}
