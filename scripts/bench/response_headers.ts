/**
 * What a lean answer's headers cost (server/lean_routes.ts): Deno's Response made with its headers in the init (a
 * list of pairs, or a record) against the same Response made bare and its headers set one by one afterwards (names
 * in capitals and in lower case), ns per answer.
 *   deno run -A --v8-flags=--max-semi-space-size=4 scripts/bench/response_headers.ts
 * (with `,--trace-gc` added to the flags, V8's young collections print between the lines: count them per way).
 */
import { SECURITY_HEADERS } from "../../server/app.ts";

const security = Object.entries(SECURITY_HEADERS) as [string, string][];
const lower = security.map(([k, v]) => [k.toLowerCase(), v] as [string, string]);
const text = '{"deviceId":"quiet-1","treatments":[],"modules":[]}';
/** A bare Response, then each header set: the security headers, then the request id, Vary and the content type. */
function setEach(fixed: [string, string][], [rid, vary, type]: string[], id: string): Response {
  const res = new Response(text, { status: 200 });
  for (const [k, v] of fixed) res.headers.set(k, v);
  res.headers.set(rid, id);
  res.headers.set(vary, "Accept-Encoding");
  res.headers.set(type, "application/json");
  return res;
}
const ways: Record<string, (id: string) => Response> = {
  "init, pairs": (id) =>
    new Response(text, {
      status: 200,
      headers: [...security, ["X-Request-Id", id], ["Vary", "Accept-Encoding"], ["Content-Type", "application/json"]],
    }),
  "init, record": (id) =>
    new Response(text, {
      status: 200,
      headers: { ...SECURITY_HEADERS, "X-Request-Id": id, Vary: "Accept-Encoding", "Content-Type": "application/json" },
    }),
  "set, capitals": (id) => setEach(security, ["X-Request-Id", "Vary", "Content-Type"], id),
  "set, lower case": (id) => setEach(lower, ["x-request-id", "vary", "content-type"], id),
};
const N = 200_000;
for (const [name, make] of Object.entries(ways)) {
  for (let i = 0; i < 20_000; i++) make(`warm-${i}`);
  const started = performance.now();
  for (let i = 0; i < N; i++) make("4b8f0f1c-1f0e-4a53-9d2f-6f1f3f8f0a11");
  console.log(`${name.padEnd(16)} ${((performance.now() - started) * 1e6 / N).toFixed(0)} ns per answer`);
}
