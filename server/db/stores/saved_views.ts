/**
 * Saved views and preferences. A view's checks (name, count) concern its owner only: each change is serialized with
 * the owner's other changes (a lock keyed by the owner), not behind the database's write lock (an import's publish).
 */
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
import { all, dialect, type Engine, keyed, one, type Q, run, storeOf, unlocked } from "../runner.ts";
import { appendAudit } from "./audit.ts";

type Row = {
  id: string;
  owner_id: string;
  owner: string;
  name: string;
  query: string;
  shared: number | boolean;
  created_at: string;
  updated_at: string;
};
const rowOf = (r: Row): ViewRow => ({
  id: r.id,
  ownerId: r.owner_id,
  owner: r.owner,
  name: r.name,
  query: r.query,
  shared: !!r.shared,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const COLUMNS = "v.id, v.owner_id, o.email AS owner, v.name, v.query, v.shared, v.created_at, v.updated_at";

function* byId(id: string): Q<ViewRow | null> {
  const row = yield* one<Row>(
    `SELECT ${COLUMNS} FROM saved_views v JOIN operators o ON o.id = v.owner_id WHERE v.id = ?`,
    id,
  );
  return row ? rowOf(row) : null;
}

function* nameTaken(ownerId: string, name: string, except: string | null): Q<boolean> {
  return (yield* one(
    "SELECT 1 FROM saved_views WHERE owner_id = ? AND name_key = ? AND id IS DISTINCT FROM ?",
    ownerId,
    viewNameKey(name),
    except,
  )) !== undefined;
}

function* ensureOperator(operatorId: string): Q<void> {
  if (!(yield* one("SELECT 1 FROM operators WHERE id = ?", operatorId))) {
    throw new NotFoundError(noOperator(operatorId));
  }
}

function* preferencesRow(operatorId: string) {
  const row = yield* one<{ device_columns: string | null }>(
    "SELECT device_columns FROM operator_preferences WHERE operator_id = ?",
    operatorId,
  );
  return preferencesOf(row?.device_columns);
}

const owned = <T>(ownerId: string, body: () => Q<T>) => keyed(`saved_views:${ownerId}`, body);

export function savedViewStore(engine: Engine): SavedViewStore {
  return storeOf<SavedViewStore>(engine, {
    *list(operatorId) {
      const d = yield* dialect();
      const rows = yield* all<Row>(
        `SELECT ${COLUMNS} FROM saved_views v JOIN operators o ON o.id = v.owner_id
         WHERE v.owner_id = ? OR ${d.isTrue("v.shared")} ORDER BY v.name_key, o.email${d.bytewise}, v.id`,
        operatorId,
      );
      return rows.map((r) => viewOf(rowOf(r)));
    },
    create: (operatorId, input) =>
      owned(operatorId, function* () {
        const d = yield* dialect();
        yield* ensureOperator(operatorId);
        const held = yield* one<{ n: number }>("SELECT count(*) AS n FROM saved_views WHERE owner_id = ?", operatorId);
        if (Number(held!.n) >= MAX_SAVED_VIEWS) throw new ConflictError(TOO_MANY_VIEWS);
        if (yield* nameTaken(operatorId, input.name, null)) throw new ConflictError(viewNameTaken(input.name));
        const id = newId();
        const at = now();
        yield* run(
          `INSERT INTO saved_views (id, owner_id, name, name_key, query, shared, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
          id,
          operatorId,
          input.name,
          viewNameKey(input.name),
          storedQuery(input.query),
          d.bool(!!input.shared),
          at,
          at,
        );
        return viewOf((yield* byId(id))!);
      }),
    // The owner is known only once the row is read: lock by the caller (only the owner may change a view).
    update: (id, by, patch) =>
      owned(by.operatorId, function* () {
        const d = yield* dialect();
        const row = checkChange(yield* byId(id), id, by, "change");
        const name = patch.name ?? row.name;
        if (patch.name !== undefined && (yield* nameTaken(row.ownerId, name, id))) {
          throw new ConflictError(viewNameTaken(name));
        }
        const query: string = patch.query !== undefined ? storedQuery(patch.query as SavedViewQuery) : row.query;
        const shared = patch.shared ?? row.shared;
        yield* run(
          "UPDATE saved_views SET name = ?, name_key = ?, query = ?, shared = ?, updated_at = ? WHERE id = ?",
          name,
          viewNameKey(name),
          query,
          d.bool(shared),
          now(),
          id,
        );
        return viewOf((yield* byId(id))!);
      }),
    remove: (id, by) =>
      unlocked(function* () {
        const row = checkChange(yield* byId(id), id, by, "delete");
        const gone = yield* one("DELETE FROM saved_views WHERE id = ? RETURNING id", id);
        if (!gone) throw new NotFoundError(`No saved view with id ${id}.`);
        const view = viewOf(row);
        // A view is a preference; only an admin removing what another operator shared is worth a trail entry.
        if (row.ownerId !== by.operatorId) {
          yield* appendAudit({ action: "saved_view.delete", target: viewTarget(view), details: viewDetails(view) });
        }
        return view;
      }),
    preferences: preferencesRow,
    setPreferences: (operatorId, patch) =>
      owned(operatorId, function* () {
        yield* ensureOperator(operatorId);
        if (patch.deviceColumns !== undefined) {
          yield* run(
            `INSERT INTO operator_preferences (operator_id, device_columns) VALUES (?, ?)
             ON CONFLICT (operator_id) DO UPDATE SET device_columns = excluded.device_columns`,
            operatorId,
            patch.deviceColumns === null ? null : JSON.stringify(patch.deviceColumns),
          );
        }
        return yield* preferencesRow(operatorId);
      }),
  });
}
