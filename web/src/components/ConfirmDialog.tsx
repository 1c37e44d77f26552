import { Button } from "primereact/button";
import type { ReactNode } from "react";
import { AppDialog } from "./AppDialog.tsx";

export interface ConfirmDialogProps {
  visible: boolean;
  header: string;
  message: string;
  /** What the change will do, shown below the question (e.g. how many modules or devices it affects). */
  details?: ReactNode;
  /** Deletes or removes something: OK is painted as a danger button. */
  destructive?: boolean;
  onAccept: () => void;
  onHide: () => void;
  /** Disables OK while the accepted action runs. */
  busy?: boolean;
}

/**
 * A header, a question and the buttons Cancel and OK. Every confirmation of this console changes what devices run or
 * removes data, so the dialog opens with focus on Cancel: Enter or Space alone never confirms.
 */
export function ConfirmDialog(
  { visible, header, message, details, destructive, onAccept, onHide, busy }: ConfirmDialogProps,
) {
  return (
    <AppDialog
      visible={visible}
      header={header}
      onHide={onHide}
      style={{ width: "32rem", maxWidth: "95vw" }}
      footer={
        <div>
          <Button label="Cancel" icon="pi pi-times" outlined autoFocus onClick={onHide} />
          <Button
            label="OK"
            icon="pi pi-check"
            severity={destructive ? "danger" : undefined}
            loading={busy}
            disabled={busy}
            onClick={onAccept}
          />
        </div>
      }
    >
      <p className="m-0" style={{ display: "flex", gap: "0.75rem", alignItems: "center" }}>
        <i className="pi pi-exclamation-triangle" style={{ fontSize: "1.5rem" }} aria-hidden="true" />
        <span>{message}</span>
      </p>
      {details && <div className="confirm-details">{details}</div>}
    </AppDialog>
  );
}

/** A confirmation waiting for the operator's answer. */
export interface PendingConfirm {
  header: string;
  message: string;
  details?: ReactNode;
  destructive?: boolean;
  onAccept: () => void;
}

/** A ConfirmDialog shown while `pending` is set; OK runs its onAccept. */
export function PendingConfirmDialog({ pending, onHide, busy }: {
  pending: PendingConfirm | null;
  onHide: () => void;
  busy?: boolean;
}) {
  return (
    <ConfirmDialog
      visible={pending !== null}
      header={pending?.header ?? ""}
      message={pending?.message ?? ""}
      details={pending?.details}
      destructive={pending?.destructive}
      busy={busy}
      onAccept={() => pending?.onAccept()}
      onHide={onHide}
    />
  );
}
