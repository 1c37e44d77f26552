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
  /** The buttons named for what they do ("Cancel rollout" / "Keep running"); OK and Cancel otherwise. */
  acceptLabel?: string;
  cancelLabel?: string;
  /** The action is known to be refused (or its effect is still being counted): the accept button is disabled. */
  acceptDisabled?: boolean;
  /** Another way out offered beside them (e.g. "Start a staged rollout instead"): closes this dialog first. */
  alternative?: { label: string; icon?: string; onClick: () => void };
}

/**
 * A header, a question and the buttons Cancel and OK. Every confirmation of this console changes what devices run or
 * removes data, so the dialog opens with focus on Cancel: Enter or Space alone never confirms.
 */
export function ConfirmDialog(
  {
    visible,
    header,
    message,
    details,
    destructive,
    onAccept,
    onHide,
    busy,
    acceptLabel,
    cancelLabel,
    acceptDisabled,
    alternative,
  }: ConfirmDialogProps,
) {
  return (
    <AppDialog
      visible={visible}
      header={header}
      onHide={onHide}
      style={{ width: "32rem", maxWidth: "95vw" }}
      footer={
        <div>
          {alternative && (
            <Button
              label={alternative.label}
              icon={alternative.icon}
              text
              disabled={busy}
              onClick={() => {
                onHide();
                alternative.onClick();
              }}
            />
          )}
          <Button label={cancelLabel ?? "Cancel"} icon="pi pi-times" outlined autoFocus onClick={onHide} />
          <Button
            label={acceptLabel ?? "OK"}
            icon="pi pi-check"
            severity={destructive ? "danger" : undefined}
            loading={busy}
            disabled={busy || acceptDisabled}
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
  acceptLabel?: string;
  cancelLabel?: string;
  alternative?: ConfirmDialogProps["alternative"];
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
      acceptLabel={pending?.acceptLabel}
      cancelLabel={pending?.cancelLabel}
      alternative={pending?.alternative}
      busy={busy}
      onAccept={() => pending?.onAccept()}
      onHide={onHide}
    />
  );
}
