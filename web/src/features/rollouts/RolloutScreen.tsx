import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Button } from "primereact/button";
import { Card } from "primereact/card";
import { Message } from "primereact/message";
import { lazy, Suspense, useState } from "react";
import { Link, useParams } from "wouter";
import type { Rollout, RolloutAction, RolloutDeviceFilter } from "../../../../shared/schemas/rollout.ts";
import { type PendingConfirm, PendingConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { InfoTable } from "../../components/InfoTable.tsx";
import { LoadState } from "../../components/LoadState.tsx";
import { formatDateTime } from "../../lib/format.ts";
import { useNotify, useNotifyError } from "../../lib/notify.ts";
import { useRole } from "../../lib/role.ts";
import { defaultReachQuery, deviceTypesQuery, firmwaresQuery, managedDeviceType } from "../firmwares/api.ts";
import { productTypesQuery } from "../product_types/api.ts";
import { rolloutDevicesQuery, rolloutHistoryQuery, rolloutQuery, rolloutStagesQuery, useRolloutAction } from "./api.ts";
import { actionEffect } from "./effects.ts";
import { StageBars } from "./StageBars.tsx";

// chart.js (with PrimeReact's wrapper) loads with the detail screen's chart only, never with the first page.
const RolloutChart = lazy(() => import("./RolloutChart.tsx"));

/** The actions a state allows; each asks first with its effect in devices (effects.ts). */
const ACTIONS: {
  action: RolloutAction;
  label: string;
  icon: string;
  when: (r: Rollout) => boolean;
  destructive?: boolean;
}[] = [
  { action: "start", label: "Start", icon: "pi pi-play", when: (r) => r.state === "draft" },
  { action: "pause", label: "Pause", icon: "pi pi-pause", when: (r) => r.state === "running" },
  { action: "resume", label: "Resume", icon: "pi pi-play", when: (r) => r.state === "paused" },
  { action: "advance", label: "Advance", icon: "pi pi-forward", when: (r) => r.state === "running" },
  {
    action: "retry",
    label: "Retry failed devices",
    icon: "pi pi-replay",
    when: (r) => ["running", "paused", "finished"].includes(r.state) && r.counts.failed > 0,
  },
  { action: "promote", label: "Promote to default", icon: "pi pi-star", when: (r) => r.state === "finished" },
  {
    action: "cancel",
    label: "Cancel rollout",
    icon: "pi pi-times",
    when: (r) => ["draft", "running", "paused"].includes(r.state),
    destructive: true,
  },
];

const FILTERS: { value: RolloutDeviceFilter | undefined; label: string }[] = [
  { value: "failed", label: "Failed" },
  { value: undefined, label: "All in stage" },
  { value: "pending", label: "No report yet" },
  { value: "downloading", label: "Downloading" },
  { value: "installing", label: "Installing" },
  { value: "installed", label: "Installed" },
];

/** /rollouts/:id: counts per stage, the chart, the devices (failed first), the actions behind confirmations. */
export default function RolloutScreen() {
  const { canWrite } = useRole();
  const { rolloutId } = useParams<{ rolloutId: string }>();
  const rollout = useQuery({
    ...rolloutQuery(rolloutId),
    throwOnError: (_err, query) => query.state.data === undefined,
  });
  const r = rollout.data;
  const live = r?.state === "running" || r?.state === "paused";
  const history = useQuery({ ...rolloutHistoryQuery(rolloutId, live), enabled: !!r });
  const [filter, setFilter] = useState<RolloutDeviceFilter | undefined>("failed");
  const [page, setPage] = useState(0);
  const devices = useQuery({ ...rolloutDevicesQuery(rolloutId, filter, page, live), enabled: !!r });
  const stages = useQuery({ ...rolloutStagesQuery(rolloutId, live), enabled: !!r });
  const firmwares = useQuery(firmwaresQuery());
  const productTypes = useQuery(productTypesQuery());
  const deviceTypes = useQuery(deviceTypesQuery());
  const managed = managedDeviceType(deviceTypes.data);
  const qc = useQueryClient();
  const act = useRolloutAction();
  const notify = useNotify();
  const notifyError = useNotifyError();
  const [confirm, setConfirm] = useState<PendingConfirm | null>(null);
  const firmware = r && firmwares.data?.find((f) => f._id === r.firmwareId);

  const ask = async (a: (typeof ACTIONS)[number]) => {
    if (!r) return;
    // Promote says how many devices the new default reaches: asked now, a failure leaves the sentence general.
    const reach = a.action === "promote" && managed
      ? await qc.fetchQuery(defaultReachQuery(managed._id)).catch(() => null)
      : null;
    const e = actionEffect(a.action, r, { firmware: firmware?.name ?? r.firmwareId, stages: stages.data, reach });
    setConfirm({
      header: e.header,
      message: e.message,
      details: e.details,
      destructive: e.destructive,
      acceptLabel: e.accept,
      cancelLabel: e.keep,
      onAccept: () =>
        act.mutateAsync({ id: r._id, action: a.action }).then(
          (now) =>
            notify(
              a.action === "retry" ? "Failed devices offered the firmware again" : `Rollout ${now.state}`,
              `${now.name}: ${now.state}, stage ${now.stage + 1} of ${now.stages.length}`,
            ),
          notifyError,
        ).finally(() => setConfirm(null)),
    });
  };

  const type = r?.productTypeId ? productTypes.data?.find((t) => t._id === r.productTypeId) : null;
  const pages = devices.data ? Math.max(1, Math.ceil(devices.data.total / devices.data.per_page)) : 1;

  return (
    <section style={{ display: "flex", flexDirection: "column", gap: "1rem" }}>
      <div className="page-header">
        <div>
          <h1>Rollout {r?.name ?? ""}</h1>
          {r && (
            <div className="page-sub">
              <span className={`rollout-state state-${r.state}`}>{r.state}</span> · Created{" "}
              {formatDateTime(r.createdAt)} by {r.createdBy} · Updated {formatDateTime(r.updatedAt)}
            </div>
          )}
        </div>
        <div style={{ display: "flex", gap: "0.5rem", flexWrap: "wrap" }}>
          {r && canWrite && ACTIONS.filter((a) => a.when(r)).map((a) => (
            <Button
              key={a.action}
              label={a.label}
              icon={a.icon}
              severity={a.destructive ? "danger" : undefined}
              outlined={a.destructive}
              onClick={() => void ask(a)}
            />
          ))}
        </div>
      </div>
      <LoadState fetching={rollout.isFetching} error={rollout.error} onRetry={() => void rollout.refetch()} />
      {r?.state === "paused" && r.pausedReason && (
        <Message severity="warn" text={r.pausedReason} role="status" className="w-full" />
      )}
      {r && (
        <div className="detail-columns">
          <div className="detail-column">
            <Card title="Stages">
              <StageBars rollout={r} stages={stages.data} />
              <InfoTable
                style={{ marginTop: "1rem" }}
                rows={[
                  ["Firmware", firmware?.name ?? r.firmwareId],
                  ["Devices", r.productTypeId === null ? "All devices" : type?.name ?? r.productTypeId],
                  [
                    "Current stage",
                    r.stage < 0 ? "Not started" : `${r.stage + 1} of ${r.stages.length} (${r.stages[r.stage]} %)`,
                  ],
                  ["Targeted", String(r.counts.targeted)],
                  ["In stage", String(r.counts.inStage)],
                  ["Downloading", String(r.counts.downloading)],
                  ["Installing", String(r.counts.installing)],
                  ["Installed", String(r.counts.installed)],
                  ["Failed", String(r.counts.failed)],
                  ["Pending (no final report)", String(r.counts.pending)],
                  ["Failure threshold", `${r.failureThreshold} %`],
                  ["Advance", r.autoAdvance ? "Automatically" : "By an operator"],
                ]}
              />
            </Card>
          </div>
          <div className="detail-column">
            <Card title="States over time">
              {history.data && history.data.length > 0
                ? (
                  <Suspense fallback={<p className="m-0">Loading the chart…</p>}>
                    <RolloutChart points={history.data} />
                  </Suspense>
                )
                : <p className="m-0">No reports yet.</p>}
            </Card>
          </div>
        </div>
      )}
      {r && r.stage >= 0 && (
        <Card title="Devices of the current stage">
          <div role="group" aria-label="Show devices" style={{ display: "flex", gap: "0.5rem", flexWrap: "wrap" }}>
            {FILTERS.map((f) => (
              <Button
                key={f.label}
                label={f.label}
                size="small"
                outlined={filter !== f.value}
                aria-pressed={filter === f.value}
                onClick={() => {
                  setFilter(f.value);
                  setPage(0);
                }}
              />
            ))}
          </div>
          {devices.data && devices.data.total === 0 && <p>No devices here.</p>}
          {devices.data && devices.data.total > 0 && (
            <table className="simple-table mt-2" data-testid="rollout-devices">
              <thead>
                <tr>
                  <th scope="col">Device</th>
                  <th scope="col">State</th>
                  <th scope="col">Progress</th>
                  <th scope="col">Message</th>
                  <th scope="col">Reported</th>
                </tr>
              </thead>
              <tbody>
                {devices.data.data.map((d) => (
                  <tr key={d.deviceId}>
                    <td>
                      <Link href={`/devices/${encodeURIComponent(d.deviceId)}`}>{d.deviceId}</Link>
                    </td>
                    <td>{d.state ?? "no report yet"}</td>
                    <td>{d.progress === null ? "-" : `${d.progress} %`}</td>
                    <td className="rollout-message">{d.message ?? "-"}</td>
                    <td>{formatDateTime(d.at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {pages > 1 && (
            <div style={{ display: "flex", gap: "0.5rem", alignItems: "center", marginTop: "0.5rem" }}>
              <Button
                label="Previous"
                size="small"
                outlined
                disabled={page === 0}
                onClick={() => setPage((p) => p - 1)}
              />
              <span>Page {page + 1} of {pages}</span>
              <Button
                label="Next"
                size="small"
                outlined
                disabled={page + 1 >= pages}
                onClick={() => setPage((p) => p + 1)}
              />
            </div>
          )}
        </Card>
      )}
      <PendingConfirmDialog pending={confirm} busy={act.isPending} onHide={() => setConfirm(null)} />
    </section>
  );
}
