import type { Context } from "hono";

/** The key of a request that came without a connection (the app called in-process). */
export const UNKNOWN_ADDRESS = "unknown";

/**
 * The client's address, as the throttles count it. From the connection; with `trustProxy` (TRUST_PROXY=1, the server
 * is reachable only through a reverse proxy that appends the address it saw) from the last X-Forwarded-For entry,
 * the one the proxy wrote, since the client can write only the entries before it. Without `trustProxy` the header is
 * ignored: anyone could send one.
 */
export function clientAddress(c: Context, trustProxy: boolean): string {
  return requestAddress(c.req.raw, c.env, trustProxy);
}

/** clientAddress of a request and what Deno.serve says of its connection (`info`; undefined in process). */
export function requestAddress(req: Request, info: unknown, trustProxy: boolean): string {
  if (trustProxy) {
    const last = req.headers.get("x-forwarded-for")?.split(",").map((s) => s.trim()).findLast((s) => s !== "");
    const key = last ? addressKey(last) : null;
    if (key) return key;
  }
  const remote = (info as Partial<Deno.ServeHandlerInfo> | undefined)?.remoteAddr;
  return (remote && "hostname" in remote ? addressKey(remote.hostname) : null) ?? UNKNOWN_ADDRESS;
}

/**
 * An IP address as a throttle key, or null when it is not one: IPv4 as written; an IPv4-mapped IPv6 address as its
 * IPv4; other IPv6 addresses by their /64 network, the block one subscriber (or one attacker) gets.
 */
export function addressKey(text: string): string | null {
  // A server sees the same few addresses again and again (every request of a device, of a NAT, of the proxy): the key
  // of the last ones is kept (parsing one is a few regular expressions, ~2 % of a quiet device poll's CPU).
  const known = keys.get(text);
  if (known !== undefined) return known;
  const key = parseAddressKey(text);
  if (text.length <= 64) {
    if (keys.size >= MAX_KEYS) keys.clear();
    keys.set(text, key);
  }
  return key;
}

const MAX_KEYS = 1024;
const keys = new Map<string, string | null>();

function parseAddressKey(text: string): string | null {
  const ip = text.trim().replace(/^\[(.*)\](:\d+)?$/, "$1").replace(/^([\d.]+):\d+$/, "$1").replace(/%.*$/, "");
  const v4 = ipv4(ip);
  if (v4) return v4.join(".");
  const groups = ipv6(ip);
  if (!groups) return null;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6] >> 8, groups[6] & 255, groups[7] >> 8, groups[7] & 255].join(".");
  }
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(":")}::/64`;
}

function ipv4(text: string): number[] | null {
  const parts = text.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return null;
  return parts.map(Number);
}

/** The eight 16-bit groups of an IPv6 address (with `::` and a dotted IPv4 tail), or null. */
function ipv6(text: string): number[] | null {
  let s = text.toLowerCase();
  const tail = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (tail) {
    const v4 = ipv4(tail[2]);
    if (!v4) return null;
    s = `${tail[1]}${((v4[0] << 8) | v4[1]).toString(16)}:${((v4[2] << 8) | v4[3]).toString(16)}`;
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(":") : [];
  const rest = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array(halves.length === 2 ? missing : 0).fill("0"), ...rest];
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null;
  return groups.map((g) => parseInt(g, 16));
}
