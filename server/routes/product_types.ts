import { Hono } from "hono";
import { Id } from "../../shared/schemas/common.ts";
import { ProductTypeCreate, ProductTypePatch } from "../../shared/schemas/product_type.ts";
import type { AppContext, AppEnv } from "../context.ts";
import { noProductType } from "../db/rules/product_types.ts";
import { badRequest, notFound } from "../errors.ts";
import { jsonBody, parse } from "../validate.ts";

const idParam = (value: string) => parse(Id, value, "id");

/** CONTRACT §5: product types and their modules. */
export function productTypesRoutes(ctx: AppContext) {
  const { productTypes } = ctx.stores;
  return new Hono<AppEnv>()
    .get("/", async (c) => c.json(await productTypes.list()))
    .post("/", async (c) => {
      const { name } = await jsonBody(c, ProductTypeCreate);
      return c.json(await productTypes.create(name), 201);
    })
    .get("/:id", async (c) => {
      const id = idParam(c.req.param("id"));
      const productType = await productTypes.get(id);
      if (!productType) throw notFound(noProductType(id));
      return c.json(productType);
    })
    .patch("/:id", async (c) => {
      const id = idParam(c.req.param("id"));
      const body = await jsonBody(c, ProductTypePatch);
      if (body._id !== id) throw badRequest(`_id: the body's _id ${body._id} differs from the path's ${id}.`);
      return c.json(await productTypes.update(id, body));
    })
    .delete("/:id", async (c) => {
      await productTypes.remove(idParam(c.req.param("id")));
      return c.body(null, 204);
    });
}
