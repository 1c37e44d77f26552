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
import { type Db, sql, transaction } from "./open.ts";
import { promised } from "./promised.ts";

const COLUMNS = `v.id, v.owner_id AS ownerId, o.email AS owner, v.name, v.query, v.shared,
  v.created_at AS createdAt, v.updated_at AS updatedAt`;
type Row = Omit<ViewRow, "shared"> & { shared: number };
const rowOf = (r: Row): ViewRow => ({ ...r, shared: r.shared === 1 });

function byId(db: Db, id: string): ViewRow | null {
  const row = sql(db, `SELECT ${COLUMNS} FROM saved_views v JOIN operators o ON o.id = v.owner_id WHERE v.id = ?`)
    .get(id) as Row | undefined;
  return row ? rowOf(row) : null;
}

function nameTaken(db: Db, ownerId: string, name: string, except: string | null): boolean {
  return sql(db, "SELECT 1 FROM saved_views WHERE owner_id = ? AND name_key = ? AND id IS NOT ?")
    .get(ownerId, viewNameKey(name), except) !== undefined;
}

function ensureOperator(db: Db, operatorId: string) {
  if (!sql(db, "SELECT 1 FROM operators WHERE id = ?").get(operatorId)) throw new NotFoundError(noOperator(operatorId));
}

export function sqliteSavedViews(db: Db): SavedViewStore {
  return promised<SavedViewStore>({
    list: (operatorId) =>
      (sql(
        db,
        `SELECT ${COLUMNS} FROM saved_views v JOIN operators o ON o.id = v.owner_id
         WHERE v.owner_id = ? OR v.shared = 1 ORDER BY v.name_key, o.email, v.id`,
      ).all(operatorId) as Row[]).map((r) => viewOf(rowOf(r))),
    create: (operatorId, input) =>
      transaction(db, () => {
        ensureOperator(db, operatorId);
        const { n } = sql(db, "SELECT count(*) AS n FROM saved_views WHERE owner_id = ?").get(operatorId) as {
          n: number;
        };
        if (n >= MAX_SAVED_VIEWS) throw new ConflictError(TOO_MANY_VIEWS);
        if (nameTaken(db, operatorId, input.name, null)) throw new ConflictError(viewNameTaken(input.name));
        const id = newId();
        const at = now();
        sql(
          db,
          `INSERT INTO saved_views (id, owner_id, name, name_key, query, shared, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        ).run(
          id,
          operatorId,
          input.name,
          viewNameKey(input.name),
          storedQuery(input.query),
          input.shared ? 1 : 0,
          at,
          at,
        );
        return viewOf(byId(db, id)!);
      }),
    update: (id, by, patch) =>
      transaction(db, () => {
        const row = checkChange(byId(db, id), id, by, "change");
        const name = patch.name ?? row.name;
        if (patch.name !== undefined && nameTaken(db, row.ownerId, name, id)) {
          throw new ConflictError(viewNameTaken(name));
        }
        const query: string = patch.query !== undefined ? storedQuery(patch.query as SavedViewQuery) : row.query;
        const shared = patch.shared ?? row.shared;
        sql(db, "UPDATE saved_views SET name = ?, name_key = ?, query = ?, shared = ?, updated_at = ? WHERE id = ?")
          .run(name, viewNameKey(name), query, shared ? 1 : 0, now(), id);
        return viewOf(byId(db, id)!);
      }),
    remove: (id, by) =>
      transaction(db, () => {
        const row = checkChange(byId(db, id), id, by, "delete");
        sql(db, "DELETE FROM saved_views WHERE id = ?").run(id);
        const view = viewOf(row);
        // A view is a preference; only an admin removing what another operator shared is worth a trail entry.
        if (row.ownerId !== by.operatorId) {
          appendAudit(db, { action: "saved_view.delete", target: viewTarget(view), details: viewDetails(view) });
        }
        return view;
      }),
    preferences: (operatorId) => {
      const row = sql(db, "SELECT device_columns FROM operator_preferences WHERE operator_id = ?").get(operatorId) as
        | { device_columns: string | null }
        | undefined;
      return preferencesOf(row?.device_columns);
    },
    setPreferences: (operatorId, patch) =>
      transaction(db, () => {
        ensureOperator(db, operatorId);
        if (patch.deviceColumns !== undefined) {
          sql(
            db,
            `INSERT INTO operator_preferences (operator_id, device_columns) VALUES (?, ?)
             ON CONFLICT (operator_id) DO UPDATE SET device_columns = excluded.device_columns`,
          ).run(operatorId, patch.deviceColumns === null ? null : JSON.stringify(patch.deviceColumns));
        }
        const row = sql(db, "SELECT device_columns FROM operator_preferences WHERE operator_id = ?").get(operatorId) as
          | { device_columns: string | null }
          | undefined;
        return preferencesOf(row?.device_columns);
      }),
  });
}
