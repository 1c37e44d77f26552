import { useId } from "react";
import { Button } from "primereact/button";
import { Card } from "primereact/card";
import { Chip } from "primereact/chip";
import { formatBytes } from "../../../../shared/format_bytes.ts";
import type { Firmware } from "../../../../shared/schemas/firmware.ts";
import { formatDateTime } from "../../lib/format.ts";
import { type ApproveOffer, AWAITS_APPROVAL_TEXT, isPending } from "./approval.ts";
import { signatureText } from "./signatureText.ts";

export interface FirmwareCardProps {
  firmware: Firmware;
  isDefault: boolean;
  /** False while the managed device type is unknown (device types not loaded). */
  canSetDefault: boolean;
  /** False for a viewer: the delete button is not shown. */
  canDelete?: boolean;
  /** What the signed-in person may do about a pending firmware's approval (approval.ts). */
  approve?: ApproveOffer;
  onDelete: () => void;
  onSetDefault: () => void;
  onApprove?: () => void;
}

/**
 * One firmware: name, 'Default' chip, delete and 'Set as default firmware' buttons, 'Uploaded: {date}', its signature
 * (the release key, or unsigned) and its approval: "Awaiting approval" with the Approve button or the reason one
 * cannot approve, or who approved it, when, and the meaning they signed.
 */
export function FirmwareCard(
  { firmware, isDefault, canSetDefault, canDelete = true, approve, onDelete, onSetDefault, onApprove }:
    FirmwareCardProps,
) {
  const reasonId = useId();
  const pendingId = useId();
  const pending = isPending(firmware);
  const { approval } = firmware;
  const title = (
    <div style={{ display: "flex", alignItems: "center", gap: "0.75rem", flexWrap: "wrap" }}>
      <span style={{ wordBreak: "break-all" }}>{firmware.name}</span>
      {isDefault && <Chip label="Default" />}
      {pending && <span className="release-badge release-badge-pending">Awaiting approval</span>}
      <span style={{ flex: 1 }} />
      {canDelete && (
        <Button
          icon="pi pi-trash"
          rounded
          text
          severity="danger"
          aria-label={`Delete firmware ${firmware.name}`}
          tooltip="Delete firmware"
          onClick={onDelete}
        />
      )}
    </div>
  );
  return (
    <Card title={title} aria-label={`Firmware ${firmware.name}`}>
      <div style={{ display: "flex", flexDirection: "column", gap: "0.75rem" }}>
        <div>
          Uploaded: {formatDateTime(firmware.createdAt)}
          {firmware.uploadedBy && <span className="text-secondary">{` by ${firmware.uploadedBy}`}</span>}
        </div>
        <div style={{ color: "var(--text-color-secondary)", fontSize: "0.9em" }}>
          {formatBytes(firmware.size)} · <span title={firmware.sha256}>SHA-256 {firmware.sha256.slice(0, 12)}…</span>
        </div>
        <div className="firmware-signature">
          <i
            className={firmware.signature ? "pi pi-verified" : "pi pi-exclamation-circle"}
            aria-hidden="true"
            style={{ marginRight: "0.4rem" }}
          />
          {signatureText(firmware.signature)}
        </div>
        {approval.state === "approved" && (
          <div className="firmware-approval">
            <i className="pi pi-check-circle" aria-hidden="true" style={{ marginRight: "0.4rem" }} />
            Approved by {approval.by ?? "unknown"}
            {approval.at ? ` on ${formatDateTime(approval.at)}` : ""}, meaning “{approval.meaning}”
          </div>
        )}
        {pending && (
          <div className="firmware-approval" style={{ display: "flex", flexDirection: "column", gap: "0.5rem" }}>
            <span id={pendingId}>{AWAITS_APPROVAL_TEXT}</span>
            {approve && approve.kind !== "hidden" && approve.kind !== "none" && (
              <div>
                <Button
                  label="Approve"
                  icon="pi pi-check-square"
                  aria-label={`Approve firmware ${firmware.name}`}
                  disabled={approve.kind !== "approve"}
                  aria-describedby={approve.reason ? reasonId : undefined}
                  onClick={onApprove}
                />
              </div>
            )}
            {approve?.reason && <small id={reasonId} className="approve-reason">{approve.reason}</small>}
          </div>
        )}
        <div>
          <Button
            label="Set as default firmware"
            icon="pi pi-star"
            outlined
            disabled={isDefault || !canSetDefault || pending}
            aria-describedby={pending ? pendingId : undefined}
            onClick={onSetDefault}
          />
        </div>
      </div>
    </Card>
  );
}
