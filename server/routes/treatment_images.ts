import { Hono } from "hono";
import { routes } from "../../shared/routes/mod.ts";
import type { AppContext, AppEnv } from "../context.ts";
import { notFound } from "../errors.ts";
import { paramsOf } from "../route_table.ts";

/** Imported images are untrusted bytes: served with their vetted type, never sniffed, sandboxed, never cached. */
export const IMAGE_HEADERS = {
  "Cache-Control": "no-store",
  "Content-Security-Policy": "sandbox; default-src 'none'; frame-ancestors 'none'",
  "X-Content-Type-Options": "nosniff",
};

export function treatmentImagesRoutes(ctx: AppContext) {
  return new Hono<AppEnv>()
    .get("/:id", async (c) => {
      const { id } = paramsOf(routes.treatmentImage, c);
      const image = await ctx.stores.treatments.image(id);
      if (!image) throw notFound(`No treatment image with id ${id}.`);
      return c.body(image.data, 200, { ...IMAGE_HEADERS, "Content-Type": image.mimeType });
    });
}
