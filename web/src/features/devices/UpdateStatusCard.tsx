import { useQuery } from "@tanstack/react-query";
import { Card } from "primereact/card";
import type { Device } from "../../../../shared/schemas/mod.ts";
import { InfoTable } from "../../components/InfoTable.tsx";
import { formatDateTime } from "../../lib/format.ts";
import { firmwaresQuery } from "../firmwares/api.ts";

/** 'Update status': the device's latest report on installing a firmware (docs/REQUIREMENTS.md §13). */
export function UpdateStatusCard({ device }: { device: Device }) {
  const firmwares = useQuery(firmwaresQuery());
  const u = device.update;
  const firmware = u && (firmwares.data?.find((f) => f._id === u.firmwareId)?.name ?? u.firmwareId);
  return (
    <Card title="Update status">
      {u
        ? (
          <InfoTable
            rows={[
              ["Firmware", firmware!],
              ["State", u.state],
              ["Progress", u.progress === null ? "-" : `${u.progress} %`],
              ["Message", u.message ?? "-"],
              ["Reported", formatDateTime(u.at)],
            ]}
          />
        )
        : <p className="m-0">The device has not reported an update yet.</p>}
    </Card>
  );
}
