/**
 * The simulated fleet's baseline (scripts/bench/fleet_polls.ts): bare Hono routes on the same Deno answering a §6
 * check-in and a hawkBit DDI poll with constant bytes (CHECKIN_FILE and POLL_FILE: a real answer of each, JSON), no
 * middleware, no auth, no database. What the load generator reaches against it is its own limit on this machine.
 */
import { Hono } from "hono";

const checkin = Deno.readTextFileSync(Deno.env.get("CHECKIN_FILE")!);
const poll = Deno.readTextFileSync(Deno.env.get("POLL_FILE")!);
const json = { "Content-Type": "application/json" };
const app = new Hono()
  .get("/healthz", (c) => c.text("ok"))
  .post("/api/v1/device/:deviceId/checkin", async (c) => {
    await c.req.raw.arrayBuffer();
    return c.body(checkin, 200, json);
  })
  .get("/:tenant/controller/v1/:controllerId", (c) => c.body(poll, 200, json));
Deno.serve({
  port: Number(Deno.env.get("PORT") ?? 0),
  hostname: "127.0.0.1",
  onListen: ({ port }) => console.log(`Listening on http://127.0.0.1:${port}/`),
}, app.fetch);
