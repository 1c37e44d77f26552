import { Hono } from "hono";
import type { Context } from "hono";
import type { AppContext, AppEnv } from "../context.ts";

const DIST = new URL("../../web/dist/", import.meta.url).pathname;

const TYPES: Record<string, string> = {
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  woff2: "font/woff2",
  woff: "font/woff",
  ttf: "font/ttf",
  eot: "application/vnd.ms-fontobject",
  svg: "image/svg+xml",
  png: "image/png",
  map: "application/json",
};

/** Hashed asset names as esbuild writes them: no path separators, no dot-dot. */
const ASSET_NAME = /^[A-Za-z0-9_-]+-[A-Z0-9]{8}\.[a-z0-9]+$/;

async function sendIndex(c: Context<AppEnv>) {
  const html = await Deno.readFile(`${DIST}index.html`).catch(() => null);
  if (!html) return c.text("The web console is not built yet: run `deno task build`.", 503);
  return c.body(html, 200, { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-cache" });
}

/**
 * web/dist with hashed assets cached for a year, index.html never cached, and
 * index.html for every other GET so each console route loads the app on a direct visit or reload.
 */
export function webRoutes(_ctx: AppContext) {
  return new Hono<AppEnv>()
    .get("/assets/:name", async (c) => {
      const name = c.req.param("name");
      const type = TYPES[name.slice(name.lastIndexOf(".") + 1)];
      const file = ASSET_NAME.test(name) && type ? await Deno.open(`${DIST}assets/${name}`).catch(() => null) : null;
      if (!file) return c.text("Not found", 404, { "Cache-Control": "no-store" });
      const { size } = await file.stat();
      return c.body(file.readable, 200, {
        "Content-Type": type,
        "Content-Length": String(size),
        "Cache-Control": "public, max-age=31536000, immutable",
      });
    })
    .get("*", (c) => sendIndex(c));
}
