/**
 * Baselines for the devices benchmark: bare Hono routes on the same Deno, no middleware, no auth, no database.
 *   GET /api/v1/devices  answers the constant JSON of BODY_FILE (a real devices page: the same bytes on the wire)
 *   GET /tiny            answers a constant 50-byte JSON
 *   POST /drain          reads the whole request body and throws it away (the upload baseline: HTTP transfer only)
 */
import { Hono } from "hono";

const page = Deno.env.get("BODY_FILE") ? Deno.readTextFileSync(Deno.env.get("BODY_FILE")!) : "{}";
const tiny = { data: [], total: 0, page: 0, per_page: 25 };
const app = new Hono()
  .get("/api/v1/devices", (c) => c.body(page, 200, { "Content-Type": "application/json" }))
  .get("/tiny", (c) => c.json(tiny))
  .post("/drain", async (c) => {
    let bytes = 0;
    for await (const chunk of c.req.raw.body!) bytes += chunk.byteLength;
    return c.json({ bytes });
  });
Deno.serve({
  port: Number(Deno.env.get("PORT") ?? 0),
  hostname: "127.0.0.1",
  onListen: ({ port }) => console.log(`Listening on http://127.0.0.1:${port}/`),
}, app.fetch);
