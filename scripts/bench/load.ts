/**
 * Load generator, run as its own process so it does not share the server's CPU time slice:
 *   deno run -A scripts/bench/load.ts <url> <seconds> <connections> [header=value ...] [--method M] [--body JSON]
 *     [--devices N]
 * With --devices, "[<device>]" in the URL becomes 0, 1, ..., N-1 in turn (N known devices polling; the connections
 * take them round-robin). Prints one JSON line {requests, rps, p50, p99, errors, non2xx}.
 */
import autocannon from "autocannon";

const [url, seconds, connections, ...rest] = Deno.args;
const headers: Record<string, string> = {};
let method = "GET";
let body: string | undefined;
let devices = 0;
for (let i = 0; i < rest.length; i++) {
  if (rest[i] === "--method") method = rest[++i];
  else if (rest[i] === "--body") body = rest[++i];
  else if (rest[i] === "--devices") devices = Number(rest[++i]);
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
  ...(devices > 0 ? { requests: [{ setupRequest: nextDevice(new URL(url.replace("[<device>]", "DEVICE"))) }] } : {}),
});
/** A request's path with the next device's number in place of "[<device>]". */
function nextDevice(template: URL) {
  const path = template.pathname.replace("DEVICE", "[<device>]") + template.search;
  let n = 0;
  return (req: { path?: string }) => {
    req.path = path.replace("[<device>]", String(n++ % devices));
    return req;
  };
}

console.log(JSON.stringify({
  requests: result.requests.total,
  rps: result.requests.average,
  p50: result.latency.p50,
  p99: result.latency.p99,
  errors: result.errors,
  non2xx: result.non2xx,
}));
