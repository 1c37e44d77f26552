import { useQuery } from "@tanstack/react-query";
import { Card } from "primereact/card";
import type { ReactNode } from "react";
import { Link } from "wouter";
import type { Device, FirmwareInEffect } from "../../../../shared/schemas/mod.ts";
import { InfoTable } from "../../components/InfoTable.tsx";
import { deviceFirmwareQuery } from "./api.ts";

function why(f: FirmwareInEffect): ReactNode {
  switch (f.source) {
    case "custom":
      return "Its custom firmware (pinned on this device: no rollout or default changes it)";
    case "rollout":
      return (
        <>
          Rollout{" "}
          <Link href={`/rollouts/${f.rolloutId}`} data-testid="device-rollout-link">
            {f.rolloutName ?? f.rolloutId}
          </Link>
          : this device is in its current stage
        </>
      );
    case "default":
      return "The device type's default firmware";
    default:
      return "No custom firmware, rollout or default firmware applies";
  }
}

/** Where the device's latest update report stands against the firmware in effect. */
function updateText(device: Device, f: FirmwareInEffect): string {
  const u = device.update;
  if (!u) return "No update report yet";
  if (u.firmwareId === f.firmwareId) return u.progress === null ? u.state : `${u.state} (${u.progress} %)`;
  return "No report on this firmware yet (the latest is about another one)";
}

/** 'Firmware in effect': what the device's configuration names now, why (docs/REQUIREMENTS.md §13), and its update for it. */
export function FirmwareInEffectCard({ device }: { device: Device }) {
  const q = useQuery(deviceFirmwareQuery(device.deviceId, device.etag));
  const f = q.data;
  return (
    <Card title="Firmware in effect">
      {q.isError && <p className="m-0">The firmware in effect could not be loaded.</p>}
      {!f && !q.isError && <p className="m-0">Loading…</p>}
      {f && (
        <InfoTable
          rows={[
            ["Firmware", f.firmwareName ?? "None"],
            ["Why", why(f)],
            ["Update", updateText(device, f)],
          ]}
        />
      )}
    </Card>
  );
}
