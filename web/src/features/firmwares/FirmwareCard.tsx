import { Button } from "primereact/button";
import { Card } from "primereact/card";
import { Chip } from "primereact/chip";
import { formatBytes } from "../../../../shared/format_bytes.ts";
import type { Firmware } from "../../../../shared/schemas/firmware.ts";
import { formatDateTime } from "../../lib/format.ts";

export interface FirmwareCardProps {
  firmware: Firmware;
  isDefault: boolean;
  /** False while the managed device type is unknown (device types not loaded). */
  canSetDefault: boolean;
  /** False for a viewer: the delete button is not shown. */
  canDelete?: boolean;
  onDelete: () => void;
  onSetDefault: () => void;
}

/** One firmware: name, 'Default' chip, delete and 'Set as default firmware' buttons, 'Uploaded: {date}'. */
export function FirmwareCard(
  { firmware, isDefault, canSetDefault, canDelete = true, onDelete, onSetDefault }: FirmwareCardProps,
) {
  const title = (
    <div style={{ display: "flex", alignItems: "center", gap: "0.75rem" }}>
      <span style={{ wordBreak: "break-all" }}>{firmware.name}</span>
      {isDefault && <Chip label="Default" />}
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
        <div>Uploaded: {formatDateTime(firmware.createdAt)}</div>
        <div style={{ color: "var(--text-color-secondary)", fontSize: "0.9em" }}>
          {formatBytes(firmware.size)} · <span title={firmware.sha256}>SHA-256 {firmware.sha256.slice(0, 12)}…</span>
        </div>
        <div>
          <Button
            label="Set as default firmware"
            icon="pi pi-star"
            outlined
            disabled={isDefault || !canSetDefault}
            onClick={onSetDefault}
          />
        </div>
      </div>
    </Card>
  );
}
