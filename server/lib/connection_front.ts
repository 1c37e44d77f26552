/**
 * The public port's front against slow clients (docs/REQUIREMENTS.md §19): Deno's server per connection with the
 * deadlines kept beside it (./direct_serve.ts), or, where this Deno lacks that internal API or `relay` is asked for,
 * the relay that reads each header itself and pumps the bytes over loopback to Deno.serve (./guarded_serve.ts).
 */
import { type GuardedServer, type GuardOptions, type Handler, serveGuarded } from "./guarded_serve.ts";
import { serveDirect, serveOnConnection } from "./direct_serve.ts";

export function serveFront(
  opts: GuardOptions,
  handler: Handler,
  form: "direct" | "relay",
  warn: (line: string) => void,
  serveOn = serveOnConnection(),
): GuardedServer {
  if (form === "relay") return serveGuarded(opts, handler);
  if (serveOn) return serveDirect(opts, handler, serveOn);
  warn(
    `WARNING: this Deno (${Deno.version.deno}) has no serveHttpOnConnection: slow clients are dropped by the relay ` +
      "front, which costs more CPU per request (docs/DECISIONS.md, the connection front without the relay).",
  );
  return serveGuarded(opts, handler);
}
