import { routes } from "../../shared/routes/mod.ts";
import type { AppContext } from "../context.ts";
import { noProductType } from "../db/rules/product_types.ts";
import { badRequest, notFound } from "../errors.ts";
import { type Api, mount } from "../mount.ts";

/** Product types and their modules. */
export function productTypesRoutes(api: Api, ctx: AppContext) {
  const { productTypes } = ctx.stores;
  mount(api, routes.listProductTypes, async (c) => c.json(await productTypes.list()));
  mount(api, routes.createProductType, async (c, { body }) => {
    const created = await productTypes.create(body.name);
    return c.json(created, 201, { ETag: created.etag });
  });
  mount(api, routes.getProductType, async (c, { params: { id } }) => {
    const productType = await productTypes.get(id);
    if (!productType) throw notFound(noProductType(id));
    return c.json(productType, 200, { ETag: productType.etag });
  });
  mount(api, routes.patchProductType, async (c, { params: { id }, body, ifMatch }) => {
    if (body._id !== id) throw badRequest(`_id: the body's _id ${body._id} differs from the path's ${id}.`);
    const updated = await productTypes.update(id, body, ifMatch);
    return c.json(updated, 200, { ETag: updated.etag });
  });
  mount(api, routes.deleteProductType, async (c, { params: { id }, ifMatch }) => {
    await productTypes.remove(id, ifMatch);
    return c.body(null, 204);
  });
}
