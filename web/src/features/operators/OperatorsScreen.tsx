import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { Button } from "primereact/button";
import { Column } from "primereact/column";
import { DataTable } from "primereact/datatable";
import { Dropdown } from "primereact/dropdown";
import { Message } from "primereact/message";
import { type OperatorAccount, type Role, roleAllows } from "../../../../shared/schemas/operator.ts";
import { type PendingConfirm, PendingConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { dropdownA11y } from "../../components/dropdownA11y.ts";
import { LoadState } from "../../components/LoadState.tsx";
import { formatDateTime } from "../../lib/format.ts";
import { useNotify, useNotifyError } from "../../lib/notify.ts";
import { useRole } from "../../lib/role.ts";
import { operatorsQuery, useCreateOperator, usePatchOperator, useResetOperatorPassword } from "./api.ts";
import { AddOperatorDialog, ResetPasswordDialog, ROLE_OPTIONS } from "./OperatorDialogs.tsx";

/** /operators (admins): accounts with their role, disable/enable, reset password; the server's refusals as toasts. */
export default function OperatorsScreen() {
  const { role, isAdmin } = useRole();
  if (role === undefined) return <h1 style={{ margin: 0 }}>Operators</h1>;
  if (!isAdmin) {
    return (
      <section style={{ display: "flex", flexDirection: "column", gap: "1rem" }}>
        <h1 style={{ margin: 0 }}>Operators</h1>
        <Message severity="info" text="Only admins manage operators." />
      </section>
    );
  }
  return <OperatorsAdmin />;
}

function OperatorsAdmin() {
  const query = useQuery(operatorsQuery());
  const create = useCreateOperator();
  const patch = usePatchOperator();
  const reset = useResetOperatorPassword();
  const notify = useNotify();
  const notifyError = useNotifyError();
  const [adding, setAdding] = useState(false);
  const [resetting, setResetting] = useState<OperatorAccount | null>(null);
  const [confirm, setConfirm] = useState<PendingConfirm | null>(null);
  const accounts = query.data ?? [];

  /** A role change is confirmed first; a demotion says that it signs the person out (the server ends their sessions). */
  const askRole = (o: OperatorAccount, next: Role) => {
    const demotion = !roleAllows(next, o.role);
    setConfirm({
      header: `Change the role of ${o.email} to ${next}?`,
      message: demotion
        ? `${o.email} is signed out at once and, after signing in again, can only do what the ${next} role allows.`
        : `${o.email} stays signed in and can do what the ${next} role allows from their next action.`,
      destructive: demotion,
      onAccept: () =>
        patch.mutateAsync({ id: o._id, patch: { role: next } })
          .then((a) => notify("Role changed", `${a.email} is now ${a.role}.`), notifyError)
          .finally(() => setConfirm(null)),
    });
  };

  const askToggle = (o: OperatorAccount) =>
    setConfirm({
      header: o.disabled ? `Enable ${o.email}?` : `Disable ${o.email}?`,
      message: o.disabled
        ? "They can sign in again, and their API tokens work again."
        : "They are signed out at once, cannot sign in, and their API tokens stop working.",
      destructive: !o.disabled,
      onAccept: () =>
        patch.mutateAsync({ id: o._id, patch: { disabled: !o.disabled } })
          .then((a) => notify(a.disabled ? "Operator disabled" : "Operator enabled", a.email), notifyError)
          .finally(() => setConfirm(null)),
    });

  return (
    <section style={{ display: "flex", flexDirection: "column", gap: "1rem" }}>
      <h1 style={{ margin: 0 }}>Operators ({query.isError ? "-" : accounts.length})</h1>
      <div>
        <Button label="Add operator" icon="pi pi-user-plus" onClick={() => setAdding(true)} />
      </div>
      <LoadState fetching={query.isFetching} error={query.error} onRetry={() => void query.refetch()} />
      {!query.isError && (
        <DataTable
          value={accounts}
          dataKey="_id"
          size="small"
          stripedRows
          aria-label="Operators"
          // A phone shows each operator as a small card (styles.css): the actions stay on screen.
          className="operators-table"
          emptyMessage={query.isPending ? " " : "No operators"}
        >
          <Column header="E-mail" field="email" />
          <Column
            header="Role"
            body={(o: OperatorAccount) => (
              <Dropdown
                value={o.role}
                options={ROLE_OPTIONS}
                disabled={patch.isPending}
                onChange={(e) => e.value !== o.role && askRole(o, e.value as Role)}
                aria-label={`Role of ${o.email}`}
                pt={dropdownA11y(`Role of ${o.email}`)}
              />
            )}
          />
          <Column
            header="Status"
            body={(o: OperatorAccount) => (
              <span className={o.disabled ? "operator-disabled" : "operator-active"}>
                {o.disabled ? "Disabled" : "Active"}
              </span>
            )}
          />
          <Column header="Added" body={(o: OperatorAccount) => formatDateTime(o.createdAt)} />
          <Column
            header="Actions"
            body={(o: OperatorAccount) => (
              <div style={{ display: "flex", gap: "0.5rem" }}>
                <Button
                  label={o.disabled ? "Enable" : "Disable"}
                  icon={o.disabled ? "pi pi-check-circle" : "pi pi-ban"}
                  severity={o.disabled ? undefined : "danger"}
                  outlined
                  size="small"
                  aria-label={`${o.disabled ? "Enable" : "Disable"} ${o.email}`}
                  onClick={() => askToggle(o)}
                />
                <Button
                  label="Reset password"
                  icon="pi pi-key"
                  outlined
                  size="small"
                  aria-label={`Reset password of ${o.email}`}
                  onClick={() => setResetting(o)}
                />
              </div>
            )}
          />
        </DataTable>
      )}
      <AddOperatorDialog
        visible={adding}
        busy={create.isPending}
        onHide={() => setAdding(false)}
        onSubmit={(body) =>
          create.mutate(body, {
            onSuccess: (a) => {
              setAdding(false);
              notify("Operator added", `${a.email} (${a.role})`);
            },
            onError: (err) => notifyError(err),
          })}
      />
      <ResetPasswordDialog
        email={resetting?.email ?? null}
        busy={reset.isPending}
        onHide={() => setResetting(null)}
        onSubmit={(password) =>
          resetting && reset.mutate({ id: resetting._id, password }, {
            onSuccess: (a) => {
              setResetting(null);
              notify("Password reset", `${a.email} signs in with the new password.`);
            },
            onError: (err) => notifyError(err),
          })}
      />
      <PendingConfirmDialog pending={confirm} busy={patch.isPending} onHide={() => setConfirm(null)} />
    </section>
  );
}
