import { ApiError } from "../../../../shared/client.ts";
import { devicesHref } from "../devices/api.ts";

/**
 * A refusal that names devices ("it is the custom firmware of 18 devices") becomes a link to the devices list filtered
 * to them (the firmware in effect), so the operator can find and change them.
 */
export function refusalLink(err: unknown, firmwareId: string): { href: string; label: string } | undefined {
  if (!(err instanceof ApiError) || err.status !== 409) return undefined;
  const m = /custom firmware of (\d+) devices?/.exec(err.msg);
  if (!m) return undefined;
  const n = Number(m[1]);
  return { href: devicesHref({ firmware: firmwareId }), label: `Show the ${n} device${n === 1 ? "" : "s"}` };
}
