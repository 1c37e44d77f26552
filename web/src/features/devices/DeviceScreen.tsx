import { useQuery } from "@tanstack/react-query";
import { useRole } from "../../lib/role.ts";
import { useParams } from "wouter";
import { LoadState } from "../../components/LoadState.tsx";
import { formatDateTime } from "../../lib/format.ts";
import { deviceQuery } from "./api.ts";
import { AuditHistory } from "../audit/api.ts";
import { AdditionalTreatmentsCard } from "./AdditionalTreatmentsCard.tsx";
import { AttributesCard } from "./AttributesCard.tsx";
import { DeviceInfoCard } from "./DeviceInfoCard.tsx";
import { FirmwareCard } from "./FirmwareCard.tsx";
import { FirmwareInEffectCard } from "./FirmwareInEffectCard.tsx";
import { ModulesCard } from "./ModulesCard.tsx";
import { ProductTypeCard } from "./ProductTypeCard.tsx";
import { UpdateStatusCard } from "./UpdateStatusCard.tsx";
import { useDeviceSave } from "./useDeviceSave.ts";
import { AdmissionCard, useTokenMode } from "./Admission.tsx";

function decode(segment: string | undefined): string {
  try {
    return decodeURIComponent(segment ?? "");
  } catch {
    return segment ?? "";
  }
}

/** Device detail. A device that cannot be loaded shows the route error page. */
export default function DeviceScreen() {
  const params = useParams<{ deviceId: string }>();
  const deviceId = decode(params.deviceId);
  const device = useQuery({
    ...deviceQuery(deviceId),
    // A failed first load is a route error; a failed background refetch keeps what is shown.
    throwOnError: (_err, query) => query.state.data === undefined,
  });
  const { save, busy: saving } = useDeviceSave(deviceId);
  const { tokenMode } = useTokenMode();
  // A viewer sees the device with every control disabled (docs/REQUIREMENTS.md §12); the server refuses their changes anyway.
  const { canWrite } = useRole();
  const busy = saving || !canWrite;

  const d = device.data;
  return (
    <section>
      <div className="page-header">
        <div>
          <h1>Device {deviceId}</h1>
          {d && (
            <div className="page-sub">
              Created {formatDateTime(d.createdAt)} · Updated {formatDateTime(d.updatedAt)}
            </div>
          )}
        </div>
      </div>
      {/* A failed refresh keeps the device shown, with the reason and Retry. */}
      <LoadState fetching={device.isFetching} error={device.error} onRetry={() => void device.refetch()} />
      {d && (
        <div className="detail-columns mt-2">
          <div className="detail-column">
            <ProductTypeCard device={d} busy={busy} save={save} />
            <ModulesCard device={d} busy={busy} save={save} />
            <FirmwareCard device={d} busy={busy} save={save} />
          </div>
          <div className="detail-column">
            <DeviceInfoCard device={d} />
            <AttributesCard device={d} />
            {tokenMode && <AdmissionCard device={d} />}
            <FirmwareInEffectCard device={d} />
            <UpdateStatusCard device={d} />
            <AdditionalTreatmentsCard device={d} busy={busy} save={save} />
          </div>
        </div>
      )}
      {d && (
        <div className="mt-3">
          <AuditHistory targetType="device" targetId={deviceId} />
        </div>
      )}
    </section>
  );
}
