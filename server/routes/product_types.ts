import { Hono } from "hono";
import { Id } from "../../shared/schemas/common.ts";
import { type ProductType, ProductTypeCreate, ProductTypePatch } from "../../shared/schemas/product_type.ts";
import type { AppContext, AppEnv } from "../context.ts";
import { firstMissingId } from "../db/devices.ts";
import { type Db, isUniqueViolation } from "../db/mod.ts";
import {
  createProductType,
  deleteProductType,
  getProductType,
  listProductTypes,
  moduleIdsOf,
  productTypeIdByName,
  updateProductType,
} from "../db/product_types.ts";
import { badRequest, conflict, notFound } from "../errors.ts";
import { jsonBody, parse } from "../validate.ts";

const idParam = (value: string) => parse(Id, value, "id");

const nameTaken = (name: string) => conflict(`A product type named ${name} already exists (names ignore case).`);

function existingProductType(db: Db, id: string): ProductType {
  const productType = getProductType(db, id);
  if (!productType) throw notFound(`No product type with id ${id}.`);
  return productType;
}

/** Checks the module list against this product type and the treatments; 400 naming the field otherwise. */
function checkModules(db: Db, productTypeId: string, modules: ProductTypePatch["modules"]): void {
  const own = moduleIdsOf(db, productTypeId);
  const seen = new Set<string>();
  modules.forEach((m, i) => {
    if (m._id !== undefined) {
      if (!own.has(m._id)) throw badRequest(`modules.${i}._id: ${m._id} is not a module of this product type.`);
      if (seen.has(m._id)) throw badRequest(`modules.${i}._id: module ${m._id} is listed more than once.`);
      seen.add(m._id);
    }
    const missing = firstMissingId(db, "treatments", m.treatmentIds);
    if (missing !== null) throw badRequest(`modules.${i}.treatmentIds: no treatment with id ${missing}.`);
  });
}

/** CONTRACT §5: product types and their modules. */
export function productTypesRoutes(ctx: AppContext) {
  return new Hono<AppEnv>()
    .get("/", (c) => c.json(listProductTypes(ctx.db)))
    .post("/", async (c) => {
      const { name } = await jsonBody(c, ProductTypeCreate);
      if (productTypeIdByName(ctx.db, name) !== null) throw nameTaken(name);
      let id: string;
      try {
        id = createProductType(ctx.db, name);
      } catch (err) {
        if (isUniqueViolation(err)) throw nameTaken(name);
        throw err;
      }
      return c.json(existingProductType(ctx.db, id), 201);
    })
    .get("/:id", (c) => c.json(existingProductType(ctx.db, idParam(c.req.param("id")))))
    .patch("/:id", async (c) => {
      const id = idParam(c.req.param("id"));
      const body = await jsonBody(c, ProductTypePatch);
      if (body._id !== id) throw badRequest(`_id: the body's _id ${body._id} differs from the path's ${id}.`);
      // Synchronous from here on: the checks and the write see the same database state.
      existingProductType(ctx.db, id);
      const holder = productTypeIdByName(ctx.db, body.name);
      if (holder !== null && holder !== id) throw nameTaken(body.name);
      checkModules(ctx.db, id, body.modules);
      updateProductType(ctx.db, id, body);
      return c.json(existingProductType(ctx.db, id));
    })
    .delete("/:id", (c) => {
      const id = idParam(c.req.param("id"));
      if (!deleteProductType(ctx.db, id)) throw notFound(`No product type with id ${id}.`);
      return c.body(null, 204);
    });
}
