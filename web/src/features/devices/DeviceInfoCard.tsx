import { Card } from "primereact/card";
import type { Device } from "../../../../shared/schemas/mod.ts";
import { InfoTable } from "../../components/InfoTable.tsx";
import { formatDateTime } from "../../lib/format.ts";

const orDash = (v: string | null | undefined) => (v ? v : "-");

/** 'Device information': what the device reported at its last check-in; '-' when absent. */
export function DeviceInfoCard({ device }: { device: Device }) {
  const v = device.versionInfo;
  const rows: [string, string][] = [
    ["Last logged in", formatDateTime(device.lastLoggedIn)],
    ["Version App", orDash(v?.app)],
    ["Version OS", orDash(v?.os)],
    ["Version Channels", v?.channels.length ? v.channels.join(" / ") : "-"],
  ];
  return (
    <Card title="Device information">
      <InfoTable rows={rows} />
    </Card>
  );
}
