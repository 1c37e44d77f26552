import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { Button } from "primereact/button";
import { Column } from "primereact/column";
import { DataTable } from "primereact/datatable";
import type { ReleaseKey } from "../../../../shared/schemas/release_key.ts";
import { type PendingConfirm, PendingConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { LoadState } from "../../components/LoadState.tsx";
import { formatDateTime } from "../../lib/format.ts";
import { useNotify, useNotifyError } from "../../lib/notify.ts";
import { useRole } from "../../lib/role.ts";
import { AddReleaseKeyDialog } from "./AddReleaseKeyDialog.tsx";
import { ALGORITHM_LABEL, releaseKeysQuery, shortFingerprint, useRevokeReleaseKey } from "./api.ts";

/** Why a non-admin's add and revoke buttons are off (the server refuses them with 403). */
export const ADMINS_ONLY_TEXT = "Only admins add and revoke release keys";

/**
 * /release_keys: the public keys whose signatures the server accepts on firmware uploads (docs/REQUIREMENTS.md §20).
 * Everyone signed in sees them; admins add one by pasting its PEM and revoke one behind a confirmation that says what
 * revoking does. Other roles see the buttons disabled with the reason.
 */
export default function ReleaseKeysScreen() {
  const query = useQuery(releaseKeysQuery());
  const { role, isAdmin } = useRole();
  const revoke = useRevokeReleaseKey();
  const notify = useNotify();
  const notifyError = useNotifyError();
  const [adding, setAdding] = useState(false);
  const [confirm, setConfirm] = useState<PendingConfirm | null>(null);
  const keys = query.data ?? [];
  const reason = role !== undefined && !isAdmin ? `${ADMINS_ONLY_TEXT}; you are signed in as ${role}.` : null;

  const askRevoke = (k: ReleaseKey) =>
    setConfirm({
      header: `Revoke release key ${k.name}?`,
      message: "Uploads signed with this key are refused from now on, at once and for good: a revoked key is never " +
        "used again. Firmware it signed before keeps naming it and stays where it is.",
      destructive: true,
      acceptLabel: "Revoke key",
      cancelLabel: "Keep the key",
      onAccept: () =>
        revoke.mutateAsync(k._id).then(() => notify("Release key revoked", k.name), notifyError).finally(() =>
          setConfirm(null)
        ),
    });

  return (
    <section style={{ display: "flex", flexDirection: "column", gap: "1rem" }}>
      <h1 style={{ margin: 0 }}>Release keys</h1>
      <p style={{ margin: 0, maxWidth: "60rem" }}>
        The public keys of your build pipeline. A firmware upload may carry a signature over the file's SHA-256 digest;
        the server accepts it only when one of these keys, not revoked, verifies it, and names that key on the firmware.
      </p>
      <div style={{ display: "flex", gap: "0.75rem", alignItems: "center", flexWrap: "wrap" }}>
        <Button
          label="Add release key"
          icon="pi pi-plus"
          disabled={!isAdmin}
          aria-describedby={reason ? "release-keys-reason" : undefined}
          onClick={() => setAdding(true)}
        />
        {reason && <span id="release-keys-reason" className="text-secondary">{reason}</span>}
      </div>
      <LoadState fetching={query.isFetching} error={query.error} onRetry={() => void query.refetch()} />
      {!query.isError && (
        <DataTable
          // The table keeps its rendered rows while `value` stays the same: the role arriving after the keys must
          // re-render the Revoke buttons.
          key={isAdmin ? "admin" : "not-admin"}
          value={keys}
          dataKey="_id"
          size="small"
          stripedRows
          aria-label="Release keys"
          emptyMessage={query.isPending ? " " : "No release keys yet"}
          className="release-keys-table"
        >
          <Column header="Name" field="name" />
          <Column header="Algorithm" body={(k: ReleaseKey) => ALGORITHM_LABEL[k.algorithm]} />
          <Column
            header="Fingerprint"
            body={(k: ReleaseKey) => (
              <code title={`SHA-256 ${k.fingerprint}`} style={{ whiteSpace: "nowrap" }}>
                {shortFingerprint(k.fingerprint)}
              </code>
            )}
          />
          <Column
            header="Added"
            body={(k: ReleaseKey) => (
              <span>
                {formatDateTime(k.createdAt)}
                <br />
                <span className="text-secondary">by {k.createdBy}</span>
              </span>
            )}
          />
          <Column
            header="State"
            body={(k: ReleaseKey) =>
              k.revokedAt
                ? (
                  <span>
                    <span className="release-badge release-badge-revoked">Revoked</span> {formatDateTime(k.revokedAt)}
                    {k.revokedBy && <span className="text-secondary">{` by ${k.revokedBy}`}</span>}
                  </span>
                )
                : <span className="release-badge release-badge-active">Active</span>}
          />
          <Column
            header="Actions"
            body={(k: ReleaseKey) =>
              k.revokedAt ? null : (
                <Button
                  label="Revoke"
                  icon="pi pi-ban"
                  severity="danger"
                  outlined
                  size="small"
                  aria-label={`Revoke ${k.name}`}
                  disabled={!isAdmin}
                  aria-describedby={reason ? "release-keys-reason" : undefined}
                  onClick={() => askRevoke(k)}
                />
              )}
          />
        </DataTable>
      )}
      <AddReleaseKeyDialog visible={adding} onHide={() => setAdding(false)} />
      <PendingConfirmDialog pending={confirm} busy={revoke.isPending} onHide={() => setConfirm(null)} />
    </section>
  );
}
