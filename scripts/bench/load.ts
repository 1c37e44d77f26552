/**
 * Load generator, run as its own process so it does not share the server's CPU time slice:
 *   deno run -A scripts/bench/load.ts <url> <seconds> <connections> [header=value ...] [--method M] [--body JSON]
 * Prints one JSON line {requests, rps, p50, p99, errors, non2xx}.
 */
import autocannon from "autocannon";

const [url, seconds, connections, ...rest] = Deno.args;
const headers: Record<string, string> = {};
let method = "GET";
let body: string | undefined;
for (let i = 0; i < rest.length; i++) {
  if (rest[i] === "--method") method = rest[++i];
  else if (rest[i] === "--body") body = rest[++i];
  else {
    const at = rest[i].indexOf("=");
    headers[rest[i].slice(0, at)] = rest[i].slice(at + 1);
  }
}
const result = await autocannon({
  url,
  duration: Number(seconds),
  connections: Number(connections),
  headers,
  method: method as "GET",
  body,
  // "[<id>]" in the URL becomes a unique id per request (e.g. one new device per check-in).
  idReplacement: url.includes("[<id>]"),
});
console.log(JSON.stringify({
  requests: result.requests.total,
  rps: result.requests.average,
  p50: result.latency.p50,
  p99: result.latency.p99,
  errors: result.errors,
  non2xx: result.non2xx,
}));
