import { useQuery } from "@tanstack/react-query";
import { Button } from "primereact/button";
import { lazy, Suspense, useState } from "react";
import { Link } from "wouter";
import { LoadState } from "../../components/LoadState.tsx";
import { formatDateTime } from "../../lib/format.ts";
import { useRole } from "../../lib/role.ts";
import { firmwaresQuery } from "../firmwares/api.ts";
import { productTypesQuery } from "../product_types/api.ts";
import type { Rollout } from "../../../../shared/schemas/rollout.ts";
import { rolloutsQuery, rolloutStagesQuery } from "./api.ts";
import { StageBars } from "./StageBars.tsx";

// The dialog (dropdowns, number inputs) loads when it opens, not with the list.
const CreateRolloutDialog = lazy(() => import("./CreateRolloutDialog.tsx"));

/** A row: its stage bars from the rollout's stage figures (asked per row, polled while it runs). */
function RolloutRow({ rollout: r, firmware, devices }: { rollout: Rollout; firmware: string; devices: string }) {
  const live = r.state === "running" || r.state === "paused";
  const stages = useQuery({ ...rolloutStagesQuery(r._id, live), enabled: r.state !== "draft" });
  return (
    <tr>
      <td>
        <Link href={`/rollouts/${r._id}`}>{r.name}</Link>
      </td>
      <td>
        <span className={`rollout-state state-${r.state}`}>{r.state}</span>
      </td>
      <td>{firmware}</td>
      <td>{devices}</td>
      <td style={{ minWidth: "12rem" }}>
        <StageBars rollout={r} stages={stages.data} compact />
      </td>
      <td>{r.counts.installed} / {r.counts.inStage}</td>
      <td>{r.counts.failed}</td>
      <td>{r.counts.pending}</td>
      <td>{formatDateTime(r.createdAt)}</td>
    </tr>
  );
}

/** /rollouts: every staged rollout, newest first, with a progress bar per stage; "New rollout" opens the dialog. */
export default function RolloutsScreen() {
  const rollouts = useQuery(rolloutsQuery());
  const firmwares = useQuery(firmwaresQuery());
  const productTypes = useQuery(productTypesQuery());
  const [creating, setCreating] = useState(false);
  const { canWrite } = useRole();
  const firmwareName = (id: string) => firmwares.data?.find((f) => f._id === id)?.name ?? id;
  const typeName = (id: string | null) =>
    id === null ? "All devices" : productTypes.data?.find((t) => t._id === id)?.name ?? id;
  const list = rollouts.data ?? [];

  return (
    <section style={{ display: "flex", flexDirection: "column", gap: "1rem" }}>
      <div className="page-header">
        <div>
          <h1>Rollouts</h1>
          <div className="page-sub">
            Ship a firmware in stages: a few devices first, the rest once they installed it.
          </div>
        </div>
        <Button
          label="New rollout"
          icon="pi pi-plus"
          disabled={!canWrite}
          onClick={() => setCreating(true)}
        />
      </div>
      <LoadState fetching={rollouts.isFetching} error={rollouts.error} onRetry={() => void rollouts.refetch()} />
      {rollouts.data && list.length === 0 && <p>No rollouts yet. Start one with 'New rollout'.</p>}
      {list.length > 0 && (
        <table className="simple-table rollouts-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">State</th>
              <th scope="col">Firmware</th>
              <th scope="col">Devices</th>
              <th scope="col">Stages</th>
              <th scope="col">Installed</th>
              <th scope="col">Failed</th>
              <th scope="col">Pending</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {list.map((r) => (
              <RolloutRow
                key={r._id}
                rollout={r}
                firmware={firmwareName(r.firmwareId)}
                devices={typeName(r.productTypeId)}
              />
            ))}
          </tbody>
        </table>
      )}
      {creating && (
        <Suspense fallback={null}>
          <CreateRolloutDialog onHide={() => setCreating(false)} />
        </Suspense>
      )}
    </section>
  );
}
