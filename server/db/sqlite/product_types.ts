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
import { appendAudit } from "./audit.ts";
import { checkIfMatch, etagOf } from "../rules/revisions.ts";
import type { ProductTypeStore, ProductTypeUpdate } from "../types/product_types.ts";
import type { IfMatch } from "../types/revisions.ts";
import { type Db, firstMissingId, isUniqueViolation, snapshot, sql, transaction } from "./open.ts";
import { promised } from "./promised.ts";
import { nextRevision } from "./revisions.ts";

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
  is_default: number;
  treatment_ids: string;
}

const SELECT_MODULES = `
  SELECT m.id, m.product_type_id, m.name, m.is_default,
    (SELECT json_group_array(t.treatment_id ORDER BY t.position) FROM module_treatments t WHERE t.module_id = m.id)
      AS treatment_ids
  FROM modules m`;

function toModule(row: ModuleRow): Module {
  return { _id: row.id, name: row.name, isDefault: row.is_default === 1, treatmentIds: JSON.parse(row.treatment_ids) };
}

function toProductType(row: ProductTypeRow, modules: Module[]): ProductType {
  return {
    _id: row.id,
    name: row.name,
    theme: JSON.parse(row.theme),
    modules,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    etag: etagOf(row.revision),
  };
}

/** All product types ordered by name (case-insensitively), each with its modules in list order. */
function listProductTypes(db: Db): ProductType[] {
  const rows = sql(
    db,
    "SELECT id, name, theme, created_at, updated_at, revision FROM product_types ORDER BY name_key, id",
  )
    .all() as unknown as ProductTypeRow[];
  const modules = new Map<string, Module[]>();
  for (const m of sql(db, `${SELECT_MODULES} ORDER BY m.product_type_id, m.position`).all() as unknown as ModuleRow[]) {
    let list = modules.get(m.product_type_id);
    if (!list) modules.set(m.product_type_id, list = []);
    list.push(toModule(m));
  }
  return rows.map((row) => toProductType(row, modules.get(row.id) ?? []));
}

function getProductType(db: Db, id: string): ProductType | null {
  const row = sql(db, "SELECT id, name, theme, created_at, updated_at, revision FROM product_types WHERE id = ?").get(
    id,
  ) as
    | ProductTypeRow
    | undefined;
  if (!row) return null;
  const modules = sql(db, `${SELECT_MODULES} WHERE m.product_type_id = ? ORDER BY m.position`).all(
    id,
  ) as unknown as ModuleRow[];
  return toProductType(row, modules.map(toModule));
}

/** The id of the product type holding this name (case-insensitively), or null. */
function productTypeIdByName(db: Db, name: string): string | null {
  const row = sql(db, "SELECT id FROM product_types WHERE name_key = ?").get(nameKey(name)) as
    | { id: string }
    | undefined;
  return row?.id ?? null;
}

/** Inserts a product type with no modules; ConflictError when the name is taken. */
export function createProductType(db: Db, name: string, theme: Theme = {}): string {
  return transaction(db, () => {
    if (productTypeIdByName(db, name) !== null) throw new ConflictError(productTypeNameTaken(name));
    const id = newId();
    const at = now();
    try {
      sql(db, "INSERT INTO product_types (id, name, name_key, theme, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)")
        .run(id, name, nameKey(name), JSON.stringify(theme), at, at);
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConflictError(productTypeNameTaken(name));
      throw err;
    }
    return id;
  });
}

/** Ids of this product type's modules. */
function moduleIdsOf(db: Db, productTypeId: string): Set<string> {
  const rows = sql(db, "SELECT id FROM modules WHERE product_type_id = ?").all(productTypeId) as unknown as {
    id: string;
  }[];
  return new Set(rows.map((r) => r.id));
}

/**
 * Checks, then replaces name, theme (when given) and the whole module list in one transaction, moving the revision.
 * Modules keep their ids when given, new ones get one. Devices that had a removed module lose it by the foreign-key
 * cascade and get their updatedAt and revision moved.
 */
export function updateProductType(db: Db, id: string, update: ProductTypeUpdate, ifMatch?: IfMatch): void {
  transaction(db, () => {
    const current = getProductType(db, id);
    if (!current) throw new NotFoundError(noProductType(id));
    checkIfMatch(ifMatch, current.etag, `Product type ${current.name}`);
    const holder = productTypeIdByName(db, update.name);
    if (holder !== null && holder !== id) throw new ConflictError(productTypeNameTaken(update.name));
    const own = moduleIdsOf(db, id);
    checkModuleList(update.modules, {
      own,
      missingTreatments: update.modules.map((m) => firstMissingId(db, "treatments", m.treatmentIds)),
    });

    const at = now();
    const revision = nextRevision(db);
    const keep = new Set(update.modules.flatMap((m) => m._id ? [m._id] : []));
    const removed = [...own].filter((m) => !keep.has(m));
    if (removed.length > 0) {
      const list = JSON.stringify(removed);
      sql(
        db,
        `UPDATE devices SET updated_at = ?, revision = ? WHERE device_id IN
           (SELECT device_id FROM device_modules WHERE module_id IN (SELECT value FROM json_each(?)))`,
      ).run(at, revision, list);
      sql(db, "DELETE FROM modules WHERE id IN (SELECT value FROM json_each(?))").run(list);
    }
    update.modules.forEach((m, position) => {
      const moduleId = m._id ?? newId();
      if (m._id) {
        sql(db, "UPDATE modules SET position = ?, name = ?, is_default = ? WHERE id = ?")
          .run(position, m.name, m.isDefault ? 1 : 0, moduleId);
        sql(db, "DELETE FROM module_treatments WHERE module_id = ?").run(moduleId);
      } else {
        sql(db, "INSERT INTO modules (id, product_type_id, position, name, is_default) VALUES (?, ?, ?, ?, ?)")
          .run(moduleId, id, position, m.name, m.isDefault ? 1 : 0);
      }
      sql(
        db,
        "INSERT INTO module_treatments (module_id, treatment_id, position) SELECT ?, value, key FROM json_each(?)",
      )
        .run(moduleId, JSON.stringify(m.treatmentIds));
    });
    const theme = update.theme === undefined ? null : JSON.stringify(update.theme);
    try {
      sql(
        db,
        `UPDATE product_types SET name = ?, name_key = ?, theme = coalesce(?, theme), updated_at = ?, revision = ?
         WHERE id = ?`,
      )
        .run(update.name, nameKey(update.name), theme, at, revision, id);
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConflictError(productTypeNameTaken(update.name));
      throw err;
    }
  });
}

/**
 * Deletes a product type; its devices get no product type and no modules (FK SET NULL + cascade), their updatedAt and
 * revision moved.
 */
function deleteProductType(db: Db, id: string, ifMatch?: IfMatch): void {
  transaction(db, () => {
    const row = sql(db, "SELECT name, revision FROM product_types WHERE id = ?").get(id) as
      | { name: string; revision: number }
      | undefined;
    if (!row) throw new NotFoundError(noProductType(id));
    checkIfMatch(ifMatch, etagOf(row.revision), `Product type ${row.name}`);
    sql(db, "UPDATE devices SET updated_at = ?, revision = ? WHERE product_type_id = ?").run(
      now(),
      nextRevision(db),
      id,
    );
    sql(db, "DELETE FROM product_types WHERE id = ?").run(id);
  });
}

export function sqliteProductTypes(db: Db): ProductTypeStore {
  return promised<ProductTypeStore>({
    list: () => snapshot(db, () => listProductTypes(db)),
    get: (id) => snapshot(db, () => getProductType(db, id)),
    create: (name) =>
      transaction(db, () => {
        const created = getProductType(db, createProductType(db, name))!;
        appendAudit(db, { action: "product_type.create", target: productTypeTarget(created._id, created.name) });
        return created;
      }),
    update: (id, update, ifMatch) =>
      transaction(db, () => {
        const before = getProductType(db, id);
        updateProductType(db, id, update, ifMatch);
        const after = getProductType(db, id)!;
        appendAudit(db, {
          action: "product_type.update",
          target: productTypeTarget(id, after.name),
          details: productTypeUpdateDetails(update, before),
        });
        return after;
      }),
    remove: (id, ifMatch) =>
      transaction(db, () => {
        const before = getProductType(db, id);
        deleteProductType(db, id, ifMatch);
        appendAudit(db, { action: "product_type.delete", target: productTypeTarget(id, before!.name) });
      }),
  });
}
