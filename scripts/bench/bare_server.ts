/** Baseline for the devices benchmark: a bare Hono route returning a constant JSON on the same Deno. */
import { Hono } from "hono";

const body = { data: [], total: 0, page: 0, per_page: 25 };
const app = new Hono().get("/api/v1/devices", (c) => c.json(body));
Deno.serve({
  port: Number(Deno.env.get("PORT") ?? 0),
  hostname: "127.0.0.1",
  onListen: ({ port }) => console.log(`Listening on http://127.0.0.1:${port}/`),
}, app.fetch);
