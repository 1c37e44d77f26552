import type { Module, ProductType, Theme } from "../../../shared/schemas/product_type.ts";
import { newId } from "../../../shared/ids.ts";
import { now } from "../clock.ts";
import { ConflictError, NotFoundError } from "../errors.ts";
import {
  checkModuleList,
  nameKey,
  noProductType,
  productTypeNameTaken,
  productTypeTarget,
  productTypeUpdateDetails,
} from "../rules/product_types.ts";
import { checkIfMatch, etagOf } from "../rules/revisions.ts";
import type { ProductTypeStore, ProductTypeUpdate } from "../types/product_types.ts";
import type { IfMatch } from "../types/revisions.ts";
import {
  all,
  dialect,
  type Engine,
  firstMissingId,
  nextRevision,
  one,
  type Q,
  read,
  run,
  storeOf,
  write,
} from "../runner.ts";
import { appendAudit } from "./audit.ts";
import { idList, idListSql, positioned } from "./dialect_sql.ts";

interface ProductTypeRow {
  id: string;
  name: string;
  theme: string;
  created_at: string;
  updated_at: string;
  revision: number;
}

interface ModuleRow {
  id: string;
  product_type_id: string;
  name: string;
  is_default: number | boolean;
  treatment_ids: unknown;
}

const PRODUCT_TYPE_COLUMNS = "id, name, theme, created_at, updated_at, revision";

function* selectModules(): Q<string> {
  const d = yield* dialect();
  return `SELECT m.id, m.product_type_id, m.name, m.is_default,
    ${idListSql(d, "t.treatment_id", "module_treatments t WHERE t.module_id = m.id", "t.position")} AS treatment_ids
  FROM modules m`;
}

const toModule = (row: ModuleRow): Module => ({
  _id: row.id,
  name: row.name,
  isDefault: Boolean(row.is_default),
  treatmentIds: idList(row.treatment_ids),
});

const toProductType = (row: ProductTypeRow, modules: Module[]): ProductType => ({
  _id: row.id,
  name: row.name,
  theme: JSON.parse(row.theme),
  modules,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  etag: etagOf(Number(row.revision)),
});

/** All product types ordered by name (case-insensitively), each with its modules in list order. */
function* listProductTypes(): Q<ProductType[]> {
  const rows = yield* all<ProductTypeRow>(`SELECT ${PRODUCT_TYPE_COLUMNS} FROM product_types ORDER BY name_key, id`);
  const modules = new Map<string, Module[]>();
  for (const m of yield* all<ModuleRow>(`${yield* selectModules()} ORDER BY m.product_type_id, m.position`)) {
    let list = modules.get(m.product_type_id);
    if (!list) modules.set(m.product_type_id, list = []);
    list.push(toModule(m));
  }
  return rows.map((row) => toProductType(row, modules.get(row.id) ?? []));
}

function* getProductType(id: string, lock = false): Q<ProductType | null> {
  const d = yield* dialect();
  const row = yield* one<ProductTypeRow>(
    `SELECT ${PRODUCT_TYPE_COLUMNS} FROM product_types WHERE id = ?${lock ? d.forUpdate : ""}`,
    id,
  );
  if (!row) return null;
  const modules = yield* all<ModuleRow>(
    `${yield* selectModules()} WHERE m.product_type_id = ? ORDER BY m.position`,
    id,
  );
  return toProductType(row, modules.map(toModule));
}

/** The id of the product type holding this name (case-insensitively), or null. */
function* productTypeIdByName(name: string): Q<string | null> {
  return (yield* one<{ id: string }>("SELECT id FROM product_types WHERE name_key = ?", nameKey(name)))?.id ?? null;
}

/** A statement that may hit the unique name: its violation as the name's ConflictError. */
function* uniqueName(name: string, statement: Q<number>): Q<void> {
  const d = yield* dialect();
  try {
    yield* statement;
  } catch (err) {
    if (d.isUniqueViolation(err)) throw new ConflictError(productTypeNameTaken(name));
    throw err;
  }
}

/** Inserts a product type with no modules (in the caller's write transaction); ConflictError when the name is taken. */
export function* createProductType(name: string, theme: Theme = {}): Q<string> {
  if ((yield* productTypeIdByName(name)) !== null) throw new ConflictError(productTypeNameTaken(name));
  const id = newId();
  const at = now();
  yield* uniqueName(
    name,
    run(
      "INSERT INTO product_types (id, name, name_key, theme, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
      id,
      name,
      nameKey(name),
      JSON.stringify(theme),
      at,
      at,
    ),
  );
  return id;
}

/**
 * Checks, then replaces name, theme (when given) and the whole module list (in the caller's write transaction), moving
 * the revision. Modules keep their ids when given, new ones get one. Devices that had a removed module lose it by the
 * foreign-key cascade and get their updatedAt and revision moved.
 */
export function* updateProductType(id: string, update: ProductTypeUpdate, ifMatch?: IfMatch): Q<void> {
  const d = yield* dialect();
  const current = yield* getProductType(id, true);
  if (!current) throw new NotFoundError(noProductType(id));
  checkIfMatch(ifMatch, current.etag, `Product type ${current.name}`);
  const holder = yield* productTypeIdByName(update.name);
  if (holder !== null && holder !== id) throw new ConflictError(productTypeNameTaken(update.name));
  const own = new Set(current.modules.map((m) => m._id));
  const missingTreatments: (string | null)[] = [];
  for (const m of update.modules) missingTreatments.push(yield* firstMissingId("treatments", m.treatmentIds));
  checkModuleList(update.modules, { own, missingTreatments });

  const at = now();
  const revision = yield* nextRevision();
  const keep = new Set(update.modules.flatMap((m) => m._id ? [m._id] : []));
  const removed = [...own].filter((m) => !keep.has(m));
  if (removed.length > 0) {
    yield* run(
      `UPDATE devices SET updated_at = ?, revision = ? WHERE device_id IN
         (SELECT device_id FROM device_modules WHERE ${d.inList("module_id")})`,
      at,
      revision,
      d.list(removed),
    );
    yield* run(`DELETE FROM modules WHERE ${d.inList("id")}`, d.list(removed));
  }
  for (const [position, m] of update.modules.entries()) {
    const moduleId = m._id ?? newId();
    if (m._id) {
      yield* run(
        // `? = 1`: a flag as SQLite's 0/1 and PostgreSQL's boolean alike.
        "UPDATE modules SET position = ?, name = ?, is_default = (? = 1) WHERE id = ?",
        position,
        m.name,
        m.isDefault ? 1 : 0,
        moduleId,
      );
      yield* run("DELETE FROM module_treatments WHERE module_id = ?", moduleId);
    } else {
      yield* run(
        "INSERT INTO modules (id, product_type_id, position, name, is_default) VALUES (?, ?, ?, ?, (? = 1))",
        moduleId,
        id,
        position,
        m.name,
        m.isDefault ? 1 : 0,
      );
    }
    if (m.treatmentIds.length) {
      yield* run(
        `INSERT INTO module_treatments (module_id, treatment_id, position)
         SELECT ?, u.value, u.position FROM ${positioned(d)}`,
        moduleId,
        d.list(m.treatmentIds),
      );
    }
  }
  const theme = update.theme === undefined ? null : JSON.stringify(update.theme);
  yield* uniqueName(
    update.name,
    run(
      "UPDATE product_types SET name = ?, name_key = ?, theme = coalesce(?, theme), updated_at = ?, revision = ? WHERE id = ?",
      update.name,
      nameKey(update.name),
      theme,
      at,
      revision,
      id,
    ),
  );
}

export function productTypeStore(engine: Engine): ProductTypeStore {
  return storeOf<ProductTypeStore>(engine, {
    list: () => read(listProductTypes),
    get: (id) => read(() => getProductType(id)),
    create: (name) =>
      write(function* () {
        const created = (yield* getProductType(yield* createProductType(name)))!;
        yield* appendAudit({ action: "product_type.create", target: productTypeTarget(created._id, created.name) });
        return created;
      }),
    update: (id, update, ifMatch) =>
      write(function* () {
        const before = yield* getProductType(id);
        yield* updateProductType(id, update, ifMatch);
        const after = (yield* getProductType(id))!;
        yield* appendAudit({
          action: "product_type.update",
          target: productTypeTarget(id, after.name),
          details: productTypeUpdateDetails(update, before),
        });
        return after;
      }),
    /** Its devices get no product type and no modules (FK SET NULL + cascade), their updatedAt and revision moved. */
    remove: (id, ifMatch) =>
      write(function* () {
        const d = yield* dialect();
        const row = yield* one<{ name: string; revision: number }>(
          `SELECT name, revision FROM product_types WHERE id = ?${d.forUpdate}`,
          id,
        );
        if (!row) throw new NotFoundError(noProductType(id));
        checkIfMatch(ifMatch, etagOf(Number(row.revision)), `Product type ${row.name}`);
        yield* run(
          "UPDATE devices SET updated_at = ?, revision = ? WHERE product_type_id = ?",
          now(),
          yield* nextRevision(),
          id,
        );
        yield* run("DELETE FROM product_types WHERE id = ?", id);
        yield* appendAudit({ action: "product_type.delete", target: productTypeTarget(id, row.name) });
      }),
  });
}
