import { Hono } from "hono";
import { routes } from "../../shared/routes/mod.ts";
import type { AppContext, AppEnv } from "../context.ts";
import { noProductType } from "../db/rules/product_types.ts";
import { badRequest, notFound } from "../errors.ts";
import { bodyOf, ifMatchOf, paramsOf } from "../route_table.ts";

/** Product types and their modules. */
export function productTypesRoutes(ctx: AppContext) {
  const { productTypes } = ctx.stores;
  return new Hono<AppEnv>()
    .get("/", async (c) => c.json(await productTypes.list()))
    .post("/", async (c) => {
      const { name } = await bodyOf(routes.createProductType, c);
      const created = await productTypes.create(name);
      return c.json(created, 201, { ETag: created.etag });
    })
    .get("/:id", async (c) => {
      const { id } = paramsOf(routes.getProductType, c);
      const productType = await productTypes.get(id);
      if (!productType) throw notFound(noProductType(id));
      return c.json(productType, 200, { ETag: productType.etag });
    })
    .patch("/:id", async (c) => {
      const { id } = paramsOf(routes.patchProductType, c);
      const ifMatch = ifMatchOf(routes.patchProductType, c);
      const body = await bodyOf(routes.patchProductType, c);
      if (body._id !== id) throw badRequest(`_id: the body's _id ${body._id} differs from the path's ${id}.`);
      const updated = await productTypes.update(id, body, ifMatch);
      return c.json(updated, 200, { ETag: updated.etag });
    })
    .delete("/:id", async (c) => {
      const { id } = paramsOf(routes.deleteProductType, c);
      await productTypes.remove(id, ifMatchOf(routes.deleteProductType, c));
      return c.body(null, 204);
    });
}
