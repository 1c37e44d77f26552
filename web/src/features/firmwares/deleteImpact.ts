import { queryOptions, useQuery } from "@tanstack/react-query";
import type { Firmware } from "../../../../shared/schemas/firmware.ts";
import type { Rollout } from "../../../../shared/schemas/rollout.ts";
import { api } from "../../lib/api.ts";
import { devicesHref } from "../devices/api.ts";
import { rolloutsQuery } from "../rollouts/api.ts";
import { deviceTypesQuery } from "./api.ts";

/** Rollouts that keep a firmware from being deleted (the server's rule: draft, running or paused ones ship it). */
const BLOCKING: readonly Rollout["state"][] = ["draft", "running", "paused"];

/** What a delete of the firmware will meet, known before the operator confirms. */
export interface DeleteImpact {
  /** The server's reasons to refuse, in its words ("it is the default firmware of device type …"). */
  reasons: string[];
  /** True when the refusal is certain (a reason is known for sure): the delete button is disabled. */
  refused: boolean;
  /** The devices that run the firmware now, as a link to the filtered list (none: undefined). */
  devices?: { href: string; label: string };
  loading: boolean;
}

/**
 * Predicts the refusal of the server's firmware delete (rules/firmwares.ts firmwareInUse) from data the console has:
 * device types' defaults, rollouts, and one count of the devices whose firmware in effect it is. That count is the
 * devices pinned to it when no default or rollout gives it to devices; otherwise it is said as "run it now".
 */
export function deleteImpact(
  f: Firmware,
  deviceTypes: readonly { name: string; defaultFirmware: string | null }[],
  rollouts: readonly Rollout[],
  inEffect: number,
): Omit<DeleteImpact, "loading"> {
  const reasons: string[] = [];
  const defaultOf = deviceTypes.filter((t) => t.defaultFirmware === f._id).map((t) => t.name).sort();
  if (defaultOf.length) reasons.push(`it is the default firmware of device type ${defaultOf.join(", ")}`);
  const byRollout = rollouts.filter((r) => r.firmwareId === f._id);
  const blocking = byRollout.filter((r) => BLOCKING.includes(r.state)).map((r) => r.name).sort();
  // Only pins give it to devices: the count is exactly the devices whose custom firmware it is.
  const onlyPins = defaultOf.length === 0 && byRollout.every((r) => r.state === "draft");
  if (onlyPins && inEffect > 0) {
    reasons.push(`it is the custom firmware of ${inEffect} device${inEffect === 1 ? "" : "s"}`);
  }
  if (blocking.length) {
    reasons.push(
      `rollout${blocking.length === 1 ? "" : "s"} ${blocking.join(", ")} ship${blocking.length === 1 ? "s" : ""} it ` +
        `(cancel ${blocking.length === 1 ? "it" : "them"} first)`,
    );
  }
  if (!onlyPins && inEffect > 0 && reasons.length === 0) {
    // A finished or cancelled rollout gives it to devices: some may have it as custom firmware as well.
    reasons.push(
      `${inEffect} device${inEffect === 1 ? " runs" : "s run"} it now; if any has it as custom firmware, deleting is ` +
        "refused",
    );
    return { reasons, refused: false, devices: devicesLink(f, inEffect) };
  }
  return { reasons, refused: reasons.length > 0, devices: inEffect > 0 ? devicesLink(f, inEffect) : undefined };
}

const devicesLink = (f: Firmware, n: number) => ({
  href: devicesHref({ firmware: f._id }),
  label: `Show the ${n} device${n === 1 ? "" : "s"}`,
});

/** How many devices have the firmware in effect (one count query; exact for the firmware filter alone). */
const inEffectQuery = (firmwareId: string) =>
  queryOptions({
    queryKey: ["devices", "count", "firmware", firmwareId] as const,
    queryFn: async () => (await api.listDevices({ firmware: firmwareId, rowsPerPage: 1 })).total,
    staleTime: 0,
  });

/**
 * deleteImpact for the firmware of the delete confirmation (null: none). Asked only while the confirmation is `open`;
 * what was found stays shown while it closes (and nothing is asked about a firmware just deleted).
 */
export function useDeleteImpact(f: Firmware | null, open: boolean): DeleteImpact {
  const deviceTypes = useQuery(deviceTypesQuery());
  const rollouts = useQuery({ ...rolloutsQuery(), enabled: f !== null && open });
  const count = useQuery({ ...inEffectQuery(f?._id ?? ""), enabled: f !== null && open });
  if (!f || !deviceTypes.data || !rollouts.data || count.data === undefined) {
    return {
      reasons: [],
      refused: false,
      loading: f !== null && !(deviceTypes.error || rollouts.error || count.error),
    };
  }
  return { ...deleteImpact(f, deviceTypes.data, rollouts.data, count.data), loading: false };
}
