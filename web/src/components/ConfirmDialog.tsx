import { Button } from "primereact/button";
import { AppDialog } from "./AppDialog.tsx";

export interface ConfirmDialogProps {
  visible: boolean;
  header: string;
  message: string;
  onAccept: () => void;
  onHide: () => void;
  /** Disables OK while the accepted action runs. */
  busy?: boolean;
}

/** SPEC "Confirm dialogs": a header, a question and the buttons Cancel and OK. */
export function ConfirmDialog({ visible, header, message, onAccept, onHide, busy }: ConfirmDialogProps) {
  return (
    <AppDialog
      visible={visible}
      header={header}
      onHide={onHide}
      style={{ width: "32rem", maxWidth: "95vw" }}
      footer={
        <div>
          <Button label="Cancel" icon="pi pi-times" outlined onClick={onHide} />
          <Button label="OK" icon="pi pi-check" autoFocus loading={busy} disabled={busy} onClick={onAccept} />
        </div>
      }
    >
      <p className="m-0" style={{ display: "flex", gap: "0.75rem", alignItems: "center" }}>
        <i className="pi pi-exclamation-triangle" style={{ fontSize: "1.5rem" }} aria-hidden="true" />
        <span>{message}</span>
      </p>
    </AppDialog>
  );
}

/** A confirmation waiting for the operator's answer. */
export interface PendingConfirm {
  header: string;
  message: string;
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
      busy={busy}
      onAccept={() => pending?.onAccept()}
      onHide={onHide}
    />
  );
}
