/**
 * GET /api/docs: an interactive reference of the API (Swagger UI from npm's swagger-ui-dist, served from this server:
 * no CDN), reading GET /api/v1/openapi.json. Its start-up script is a file of ours, so the CSP needs no inline script.
 */
import { Hono } from "hono";
// Only the package's path helper: its main module would load the 1.5 MB bundle into the server's memory.
import getAbsoluteFSPath from "swagger-ui-dist/absolute-path.js";
import type { AppEnv } from "../context.ts";

const DIR = getAbsoluteFSPath();
const FILES: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui-standalone-preset.js": "text/javascript; charset=utf-8",
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference - Fleet console</title>
<link rel="stylesheet" href="/api/docs/swagger-ui.css">
</head>
<body>
<main id="api-reference"></main>
<script src="/api/docs/swagger-ui-bundle.js"></script>
<script src="/api/docs/start.js"></script>
</body>
</html>
`;

const START = `window.ui = SwaggerUIBundle({
  url: "/api/v1/openapi.json",
  dom_id: "#api-reference",
  deepLinking: true,
  persistAuthorization: false,
  tryItOutEnabled: false,
});
`;

export function apiDocsRoutes() {
  const cache = new Map<string, Uint8Array<ArrayBuffer>>();
  return new Hono<AppEnv>()
    .get("/", (c) => c.html(PAGE, 200, { "Cache-Control": "no-cache" }))
    .get("/start.js", (c) => c.body(START, 200, { "Content-Type": "text/javascript; charset=utf-8" }))
    .get("/:file", async (c) => {
      const file = c.req.param("file");
      const type = FILES[file];
      if (!type) return c.text("Not found", 404);
      let bytes = cache.get(file);
      if (!bytes) cache.set(file, bytes = await Deno.readFile(`${DIR}/${file}`));
      return c.body(bytes, 200, { "Content-Type": type, "Cache-Control": "public, max-age=3600" });
    });
}
