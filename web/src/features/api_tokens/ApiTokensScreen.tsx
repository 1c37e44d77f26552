import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { Button } from "primereact/button";
import { Column } from "primereact/column";
import { DataTable } from "primereact/datatable";
import type { ApiToken } from "../../../../shared/schemas/api_token.ts";
import { type PendingConfirm, PendingConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { LoadState } from "../../components/LoadState.tsx";
import { formatDateTime } from "../../lib/format.ts";
import { useNotify, useNotifyError } from "../../lib/notify.ts";
import { useRole } from "../../lib/role.ts";
import { apiTokensQuery, useRevokeApiToken } from "./api.ts";
import { CreateTokenDialog } from "./CreateTokenDialog.tsx";

/** /api_tokens: one's API tokens (admins: everyone's), the create dialog and revocation behind a confirmation. */
export default function ApiTokensScreen() {
  const query = useQuery(apiTokensQuery());
  const { role, isAdmin } = useRole();
  const revoke = useRevokeApiToken();
  const notify = useNotify();
  const notifyError = useNotifyError();
  const [creating, setCreating] = useState(false);
  const [confirm, setConfirm] = useState<PendingConfirm | null>(null);
  const tokens = query.data ?? [];
  const failed = query.isError;

  const askRevoke = (t: ApiToken) =>
    setConfirm({
      header: `Revoke API token ${t.name}?`,
      message: "Scripts and CI jobs using this token stop working at once. This cannot be undone.",
      destructive: true,
      onAccept: () =>
        revoke.mutateAsync(t._id).then(() => notify("API token revoked", t.name), notifyError).finally(() =>
          setConfirm(null)
        ),
    });

  return (
    <section style={{ display: "flex", flexDirection: "column", gap: "1rem" }}>
      <h1 style={{ margin: 0 }}>API tokens</h1>
      <p style={{ margin: 0, maxWidth: "60rem" }}>
        Tokens let CI jobs and scripts call the API as you, within the scopes you give them and never beyond your role.
        {isAdmin ? " As an admin you see and can revoke everyone's tokens." : ""}
      </p>
      <div>
        <Button label="Create token" icon="pi pi-plus" disabled={!role} onClick={() => setCreating(true)} />
      </div>
      <LoadState fetching={query.isFetching} error={query.error} onRetry={() => void query.refetch()} />
      {!failed && (
        <DataTable
          value={tokens}
          dataKey="_id"
          size="small"
          stripedRows
          aria-label="API tokens"
          emptyMessage={query.isPending ? " " : "No API tokens yet"}
        >
          <Column header="Name" field="name" />
          <Column
            header="Scopes"
            body={(t: ApiToken) => <span className="token-scopes">{t.scopes.join(", ")}</span>}
          />
          {/* Always there (one's own e-mail for non-admins): a column added once GET me answers would shift the cells. */}
          <Column header="Owner" field="owner" />
          <Column header="Created" body={(t: ApiToken) => formatDateTime(t.createdAt)} />
          <Column header="Expires" body={(t: ApiToken) => t.expiresAt ? formatDateTime(t.expiresAt) : "Never"} />
          <Column header="Last used" body={(t: ApiToken) => t.lastUsedAt ? formatDateTime(t.lastUsedAt) : "Never"} />
          <Column
            header="Actions"
            body={(t: ApiToken) => (
              <Button
                label="Revoke"
                icon="pi pi-trash"
                severity="danger"
                outlined
                size="small"
                aria-label={`Revoke ${t.name}`}
                onClick={() => askRevoke(t)}
              />
            )}
          />
        </DataTable>
      )}
      <CreateTokenDialog visible={creating} role={role} onHide={() => setCreating(false)} />
      <PendingConfirmDialog pending={confirm} busy={revoke.isPending} onHide={() => setConfirm(null)} />
    </section>
  );
}
