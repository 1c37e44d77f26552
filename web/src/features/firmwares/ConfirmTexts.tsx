import { useQuery } from "@tanstack/react-query";
import { Link } from "wouter";
import { defaultReachQuery } from "./api.ts";
import type { DeleteImpact } from "./deleteImpact.ts";

const devices = (n: number) => `${n} device${n === 1 ? "" : "s"}`;

/** The set-default confirmation's count: how many devices the new default reaches at their next check-in. */
export function DefaultReachText({ deviceTypeId, firmware }: { deviceTypeId: string; firmware: string }) {
  const reach = useQuery(defaultReachQuery(deviceTypeId));
  if (reach.isError) return <p className="m-0">The devices it reaches could not be counted.</p>;
  if (!reach.data) return <p className="m-0">Counting the devices it reaches…</p>;
  const r = reach.data;
  const kept = [
    r.custom ? `${devices(r.custom)} with a custom firmware` : "",
    r.rollout ? `${devices(r.rollout)} in a rollout's stage` : "",
  ].filter(Boolean);
  return (
    <p className="m-0" data-testid="default-reach">
      <strong>{devices(r.devices)}</strong> of {r.total} get {firmware} at their next check-in.
      {kept.length > 0 && ` ${kept.join(" and ")} keep theirs.`}{" "}
      To reach a few devices first, start a staged rollout instead.
    </p>
  );
}

/** The delete confirmation's forecast: what the server will refuse, said before the operator confirms. */
export function DeleteImpactText({ impact }: { impact: DeleteImpact }) {
  if (impact.loading) return <p className="m-0">Checking where this firmware is in use…</p>;
  if (impact.reasons.length === 0) return <p className="m-0">No device, default or rollout uses it.</p>;
  return (
    <p className="m-0" data-testid="delete-impact">
      {impact.refused ? "It cannot be deleted now: " : "Note: "}
      {impact.reasons.join(" and ")}.
      {impact.devices && (
        <>
          {" "}
          <Link href={impact.devices.href}>{impact.devices.label}</Link>
        </>
      )}
    </p>
  );
}
