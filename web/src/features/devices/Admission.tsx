/**
 * Device identity and admission in the console (docs/REQUIREMENTS.md §11), shown only when the server runs with DEVICE_AUTH=token:
 * the devices list's admission filter (with the pending count), its row actions and selection bar, and the device
 * screen's "Admission and credentials" card. Every action asks first and reports in a toast.
 */
import { useQuery } from "@tanstack/react-query";
import { Button } from "primereact/button";
import { Card } from "primereact/card";
import { useState } from "react";
import type { Admission, Device } from "../../../../shared/schemas/mod.ts";
import { ConfirmDialog, type PendingConfirm } from "../../components/ConfirmDialog.tsx";
import { InfoTable } from "../../components/InfoTable.tsx";
import { LiteButton } from "../../components/LiteButton.tsx";
import { formatDateTime } from "../../lib/format.ts";
import { errorMessage, useNotify, useNotifyError } from "../../lib/notify.ts";
import { useRole } from "../../lib/role.ts";
import { type AdmissionAction, admissionQuery, useAdmitDevices } from "./api.ts";
import { FilterSelect } from "./FilterSelect.tsx";

export const ADMISSION_LABELS: Record<Admission, string> = {
  pending: "Pending",
  accepted: "Accepted",
  rejected: "Rejected",
};

/** True once the server said it runs with DEVICE_AUTH=token (the admission controls are shown only then). */
export function useTokenMode(): { tokenMode: boolean; pending: number | null } {
  const summary = useQuery(admissionQuery());
  return {
    tokenMode: summary.data?.auth === "token",
    pending: summary.data ? summary.data.counts.pending : null,
  };
}

/** The admission filter of the devices list: All, Pending (with the count), Accepted, Rejected. */
export function AdmissionFilter({ value, pending, onChange }: {
  value: Admission | undefined;
  pending: number | null;
  onChange: (next: Admission | undefined) => void;
}) {
  return (
    <FilterSelect
      id="device-admission"
      label="Admission"
      value={value ?? ""}
      onChange={(v) => onChange(v === "" ? undefined : v as Admission)}
    >
      <option value="">All devices</option>
      <option value="pending">{pending === null ? "Pending" : `Pending (${pending})`}</option>
      <option value="accepted">Accepted</option>
      <option value="rejected">Rejected</option>
    </FilterSelect>
  );
}

const VERB: Record<AdmissionAction, { title: string; done: string; button: string }> = {
  accept: { title: "Accept", done: "accepted", button: "Accept" },
  reject: { title: "Reject", done: "rejected", button: "Reject" },
  reset_credentials: { title: "Reset credentials of", done: "reset", button: "Reset credentials" },
};

const WHAT: Record<AdmissionAction, (n: string) => string> = {
  accept: (n) => `${n} will get ${n === "this device" ? "its" : "their"} token at the next enrolment.`,
  reject: (n) =>
    `${n === "this device" ? "Its token" : "Their tokens"} stop working at once and ${n} can no longer enrol.`,
  reset_credentials: () => "Its token stops working at once; the device must enrol again for a new one.",
};

/**
 * Runs an admission action on devices after a confirm dialog, with a toast for what was done and one per refusal.
 * Returns the dialog to render and `ask(action, ids)`.
 */
export function useAdmissionActions(onDone?: () => void) {
  const admit = useAdmitDevices();
  // A viewer may not admit devices (docs/REQUIREMENTS.md §12): every admission button is disabled for them.
  const { canWrite } = useRole();
  const notify = useNotify();
  const notifyError = useNotifyError();
  // The asked action is kept while the dialog closes, so its text does not vanish during the fade.
  const [pending, setPending] = useState<PendingConfirm | null>(null);
  const [open, setOpen] = useState(false);

  const ask = (action: AdmissionAction, deviceIds: string[]) => {
    if (deviceIds.length === 0) return;
    const one = deviceIds.length === 1;
    const name = one ? `device ${deviceIds[0]}` : `${deviceIds.length} devices`;
    setOpen(true);
    setPending({
      header: `${VERB[action].title} ${name}?`,
      message: `${VERB[action].title} ${name}?`,
      details: WHAT[action](one ? "this device" : "these devices"),
      destructive: action !== "accept",
      acceptLabel: one ? VERB[action].button : `${VERB[action].button} ${deviceIds.length} devices`,
      cancelLabel: "Leave as is",
      onAccept: async () => {
        const outcome = await admit.mutateAsync({ action, deviceIds });
        setOpen(false);
        if (outcome.done.length) {
          const n = outcome.done.length;
          notify(
            action === "reset_credentials" ? "Credentials reset" : `Device${n === 1 ? "" : "s"} ${VERB[action].done}`,
            n === 1 ? `Device ${outcome.done[0].deviceId}.` : `${n} devices.`,
          );
        }
        for (const f of outcome.failed) notifyError(new Error(`${f.deviceId}: ${errorMessage(f.error)}`));
        onDone?.();
      },
    });
  };

  // Mounted from the first question on (a hidden PrimeReact Dialog still costs every render of the list).
  const dialog = pending && (
    <ConfirmDialog
      visible={open}
      header={pending?.header ?? ""}
      message={pending?.message ?? ""}
      details={pending?.details}
      destructive={pending?.destructive}
      acceptLabel={pending?.acceptLabel}
      cancelLabel={pending?.cancelLabel}
      busy={admit.isPending}
      onAccept={() => pending?.onAccept()}
      onHide={() => setOpen(false)}
    />
  );
  return { ask, dialog, busy: admit.isPending || !canWrite };
}

/**
 * A row's admission tag and its labelled Accept / Reject buttons (the row itself opens the device: clicks stop here).
 * The column comes right after the device id, so the buttons are in view without scrolling sideways.
 */
export function AdmissionCell({ device, ask, busy }: {
  device: Device;
  ask: (action: AdmissionAction, ids: string[]) => void;
  busy: boolean;
}) {
  const a = device.admission;
  return (
    <span className="admission-cell" onClick={(e) => e.stopPropagation()}>
      <span className={`admission-tag admission-${a}`}>{ADMISSION_LABELS[a]}</span>
      {a !== "accepted" && (
        <LiteButton
          icon="pi pi-check"
          label="Accept"
          text
          size="small"
          aria-label={`Accept ${device.deviceId}`}
          disabled={busy}
          onClick={() => ask("accept", [device.deviceId])}
        />
      )}
      {a !== "rejected" && (
        <LiteButton
          icon="pi pi-ban"
          label="Reject"
          text
          size="small"
          severity="danger"
          aria-label={`Reject ${device.deviceId}`}
          disabled={busy}
          onClick={() => ask("reject", [device.deviceId])}
        />
      )}
    </span>
  );
}

/** The selected rows' Accept and Reject buttons. */
export function SelectionBar({ selected, ask, busy, onClear }: {
  selected: string[];
  ask: (action: AdmissionAction, ids: string[]) => void;
  busy: boolean;
  onClear: () => void;
}) {
  if (selected.length === 0) return null;
  return (
    <div className="selection-bar" role="group" aria-label="Selected devices">
      <span>{selected.length} selected</span>
      <Button
        label="Accept selected"
        icon="pi pi-check"
        size="small"
        disabled={busy}
        onClick={() => ask("accept", selected)}
      />
      <Button
        label="Reject selected"
        icon="pi pi-ban"
        size="small"
        severity="danger"
        outlined
        disabled={busy}
        onClick={() => ask("reject", selected)}
      />
      <Button label="Clear selection" size="small" text onClick={onClear} />
    </div>
  );
}

/** The device screen's "Admission and credentials" card, with Accept, Reject and Reset credentials. */
export function AdmissionCard({ device }: { device: Device }) {
  const { ask, dialog, busy } = useAdmissionActions();
  const a = device.admission;
  const rows: [string, string][] = [
    ["Admission", ADMISSION_LABELS[a]],
    [
      "Credentials",
      device.credentialsIssuedAt
        ? `Token issued ${formatDateTime(device.credentialsIssuedAt)}`
        : a === "accepted"
        ? "No token yet: issued at the next enrolment"
        : "No token",
    ],
  ];
  const id = [device.deviceId];
  return (
    <Card title="Admission and credentials">
      <InfoTable rows={rows} />
      <div className="card-actions">
        {a !== "accepted" && (
          <Button
            label="Accept"
            icon="pi pi-check"
            size="small"
            disabled={busy}
            onClick={() => ask("accept", id)}
          />
        )}
        {a !== "rejected" && (
          <Button
            label="Reject"
            icon="pi pi-ban"
            size="small"
            severity="danger"
            outlined
            disabled={busy}
            onClick={() => ask("reject", id)}
          />
        )}
        {device.credentialsIssuedAt && (
          <Button
            label="Reset credentials"
            icon="pi pi-refresh"
            size="small"
            severity="danger"
            outlined
            disabled={busy}
            onClick={() => ask("reset_credentials", id)}
          />
        )}
      </div>
      {dialog}
    </Card>
  );
}
