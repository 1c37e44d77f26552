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
import { firstMissingId, isUniqueViolation, nextRevision, read, type Sql, type Tx, write } from "./open.ts";

const SELECT_MODULES = `
  SELECT m.id, m.product_type_id, m.name, m.is_default,
    ARRAY(SELECT t.treatment_id FROM module_treatments t WHERE t.module_id = m.id ORDER BY t.position) AS treatment_ids
  FROM modules m`;

// deno-lint-ignore no-explicit-any
type Row = any;

const toModule = (r: Row): Module => ({
  _id: r.id,
  name: r.name,
  isDefault: r.is_default,
  treatmentIds: r.treatment_ids,
});

const toProductType = (r: Row, modules: Module[]): ProductType => ({
  _id: r.id,
  name: r.name,
  theme: JSON.parse(r.theme),
  modules,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  etag: etagOf(Number(r.revision)),
});

async function listProductTypes(tx: Tx): Promise<ProductType[]> {
  const rows =
    await tx`SELECT id, name, theme, created_at, updated_at, revision FROM product_types ORDER BY name_key, id`;
  const modules = new Map<string, Module[]>();
  for (const m of await tx.unsafe(`${SELECT_MODULES} ORDER BY m.product_type_id, m.position`)) {
    let list = modules.get(m.product_type_id);
    if (!list) modules.set(m.product_type_id, list = []);
    list.push(toModule(m));
  }
  return rows.map((row) => toProductType(row, modules.get(row.id) ?? []));
}

async function getProductType(tx: Tx, id: string, lock = false): Promise<ProductType | null> {
  const rows = await tx.unsafe(
    `SELECT id, name, theme, created_at, updated_at, revision FROM product_types WHERE id = $1${
      lock ? " FOR UPDATE" : ""
    }`,
    [id],
  );
  if (!rows.length) return null;
  const modules = await tx.unsafe(`${SELECT_MODULES} WHERE m.product_type_id = $1 ORDER BY m.position`, [id]);
  return toProductType(rows[0], modules.map(toModule));
}

async function productTypeIdByName(tx: Tx, name: string): Promise<string | null> {
  const rows = await tx`SELECT id FROM product_types WHERE name_key = ${nameKey(name)}`;
  return rows.length ? rows[0].id : null;
}

/** Inserts a product type with no modules (in the caller's write transaction); ConflictError when the name is taken. */
export async function createProductType(tx: Tx, name: string, theme: Theme = {}): Promise<string> {
  if (await productTypeIdByName(tx, name) !== null) throw new ConflictError(productTypeNameTaken(name));
  const id = newId();
  const at = now();
  try {
    await tx`INSERT INTO product_types (id, name, name_key, theme, created_at, updated_at)
      VALUES (${id}, ${name}, ${nameKey(name)}, ${JSON.stringify(theme)}, ${at}, ${at})`;
  } catch (err) {
    if (isUniqueViolation(err)) throw new ConflictError(productTypeNameTaken(name));
    throw err;
  }
  return id;
}

/** See SQLite's updateProductType: the same checks and writes, in the caller's write transaction. */
export async function updateProductType(tx: Tx, id: string, update: ProductTypeUpdate, ifMatch?: IfMatch) {
  const current = await getProductType(tx, id, true);
  if (!current) throw new NotFoundError(noProductType(id));
  checkIfMatch(ifMatch, current.etag, `Product type ${current.name}`);
  const holder = await productTypeIdByName(tx, update.name);
  if (holder !== null && holder !== id) throw new ConflictError(productTypeNameTaken(update.name));
  const own = new Set(current.modules.map((m) => m._id));
  const missingTreatments: (string | null)[] = [];
  for (const m of update.modules) missingTreatments.push(await firstMissingId(tx, "treatments", m.treatmentIds));
  checkModuleList(update.modules, { own, missingTreatments });

  const at = now();
  const revision = await nextRevision(tx);
  const keep = new Set(update.modules.flatMap((m) => m._id ? [m._id] : []));
  const removed = [...own].filter((m) => !keep.has(m));
  if (removed.length > 0) {
    await tx`UPDATE devices SET updated_at = ${at}, revision = ${revision} WHERE device_id IN
      (SELECT device_id FROM device_modules WHERE module_id = ANY(${removed}::text[]))`;
    await tx`DELETE FROM modules WHERE id = ANY(${removed}::text[])`;
  }
  for (const [position, m] of update.modules.entries()) {
    const moduleId = m._id ?? newId();
    if (m._id) {
      await tx`UPDATE modules SET position = ${position}, name = ${m.name}, is_default = ${m.isDefault}
        WHERE id = ${moduleId}`;
      await tx`DELETE FROM module_treatments WHERE module_id = ${moduleId}`;
    } else {
      await tx`INSERT INTO modules (id, product_type_id, position, name, is_default)
        VALUES (${moduleId}, ${id}, ${position}, ${m.name}, ${m.isDefault})`;
    }
    if (m.treatmentIds.length) {
      await tx`INSERT INTO module_treatments (module_id, treatment_id, position)
        SELECT ${moduleId}, t, n - 1 FROM unnest(${m.treatmentIds}::text[]) WITH ORDINALITY AS u(t, n)`;
    }
  }
  const theme = update.theme === undefined ? null : JSON.stringify(update.theme);
  try {
    await tx`UPDATE product_types SET name = ${update.name}, name_key = ${nameKey(update.name)},
      theme = coalesce(${theme}, theme), updated_at = ${at}, revision = ${revision} WHERE id = ${id}`;
  } catch (err) {
    if (isUniqueViolation(err)) throw new ConflictError(productTypeNameTaken(update.name));
    throw err;
  }
}

export function postgresProductTypes(sql: Sql): ProductTypeStore {
  return {
    list: () => read(sql, listProductTypes),
    get: (id) => read(sql, (tx) => getProductType(tx, id)),
    create: (name) =>
      write(sql, async (tx) => {
        const created = (await getProductType(tx, await createProductType(tx, name)))!;
        await appendAudit(tx, { action: "product_type.create", target: productTypeTarget(created._id, created.name) });
        return created;
      }),
    update: (id, update, ifMatch) =>
      write(sql, async (tx) => {
        const before = await getProductType(tx, id);
        await updateProductType(tx, id, update, ifMatch);
        const after = (await getProductType(tx, id))!;
        await appendAudit(tx, {
          action: "product_type.update",
          target: productTypeTarget(id, after.name),
          details: productTypeUpdateDetails(update, before),
        });
        return after;
      }),
    remove: (id, ifMatch) =>
      write(sql, async (tx) => {
        const rows = await tx`SELECT name, revision FROM product_types WHERE id = ${id} FOR UPDATE`;
        if (!rows.length) throw new NotFoundError(noProductType(id));
        checkIfMatch(ifMatch, etagOf(Number(rows[0].revision)), `Product type ${rows[0].name}`);
        await tx`UPDATE devices SET updated_at = ${now()}, revision = ${await nextRevision(tx)}
          WHERE product_type_id = ${id}`;
        await tx`DELETE FROM product_types WHERE id = ${id}`;
        await appendAudit(tx, { action: "product_type.delete", target: productTypeTarget(id, rows[0].name) });
      }),
  };
}
