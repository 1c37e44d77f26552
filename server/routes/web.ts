import { Hono } from "hono";
import type { Context } from "hono";
import type { AppContext, AppEnv } from "../context.ts";
import { acceptedEncodings } from "../lib/compress.ts";

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

/** Crawlers have nothing to index: every page is behind the sign-in. */
const ROBOTS_TXT = "User-agent: *\nDisallow: /\n";

/**
 * Opens `path`, or the copy the build compressed beforehand (`.br`, then `.gz`) when the client accepts it.
 * Answers null when the file is missing.
 */
async function openBest(c: Context<AppEnv>, path: string) {
  const ok = acceptedEncodings(c.req.header("Accept-Encoding"));
  for (const [encoding, ext] of [["br", ".br"], ["gzip", ".gz"]] as const) {
    if (!ok.has(encoding)) continue;
    const file = await Deno.open(path + ext).catch(() => null);
    if (file) return { file, encoding };
  }
  const file = await Deno.open(path).catch(() => null);
  return file ? { file, encoding: null } : null;
}

async function send(c: Context<AppEnv>, path: string, type: string, cacheControl: string, compressible: boolean) {
  const found = compressible ? await openBest(c, path) : await Deno.open(path).then(
    (file) => ({ file, encoding: null }),
    () => null,
  );
  if (!found) return null;
  const { size } = await found.file.stat();
  const headers: Record<string, string> = {
    "Content-Type": type,
    "Content-Length": String(size),
    "Cache-Control": cacheControl,
  };
  // Caches keep one copy per encoding.
  if (compressible) headers["Vary"] = "Accept-Encoding";
  if (found.encoding) headers["Content-Encoding"] = found.encoding;
  if (c.req.method === "HEAD") {
    found.file.close();
    return c.body(null, 200, headers);
  }
  return c.body(found.file.readable, 200, headers);
}

async function sendIndex(c: Context<AppEnv>) {
  const sent = await send(c, `${DIST}index.html`, "text/html; charset=utf-8", "no-cache", true);
  return sent ?? c.text("The web console is not built yet: run `deno task build`.", 503);
}

/**
 * web/dist with hashed assets cached for a year, index.html never cached, and
 * index.html for every other GET so each console route loads the app on a direct visit or reload.
 * Scripts, styles and index.html go out brotli- or gzip-compressed as the build left them (`Vary: Accept-Encoding`).
 */
export function webRoutes(_ctx: AppContext) {
  return new Hono<AppEnv>()
    .get("/assets/:name", async (c) => {
      const name = c.req.param("name");
      const ext = name.slice(name.lastIndexOf(".") + 1);
      const type = TYPES[ext];
      const sent = ASSET_NAME.test(name) && type
        ? await send(
          c,
          `${DIST}assets/${name}`,
          type,
          "public, max-age=31536000, immutable",
          !/^(woff2?|png)$/.test(ext),
        )
        : null;
      return sent ?? c.text("Not found", 404, { "Cache-Control": "no-store" });
    })
    .get("/robots.txt", (c) => c.text(ROBOTS_TXT, 200, { "Cache-Control": "public, max-age=86400" }))
    .get("*", (c) => sendIndex(c));
}
