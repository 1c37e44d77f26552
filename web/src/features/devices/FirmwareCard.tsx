import { useQuery } from "@tanstack/react-query";
import { Card } from "primereact/card";
import { Dropdown } from "primereact/dropdown";
import { dropdownA11y } from "../../components/dropdownA11y.ts";
import { useState } from "react";
import { ConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { ConflictNotice } from "../../components/ConflictNotice.tsx";
import { byId } from "../../lib/focus.ts";
import { firmwareOption, firmwaresQuery } from "../firmwares/api.ts";
import { firmwareConfirm } from "./confirmTexts.ts";
import type { DeviceCardProps } from "./types.ts";

const DEFAULT = "__default__";
const INPUT_ID = "device-firmware";

/**
 * 'Custom device firmware': the device type's default, or one uploaded firmware for this device. A change asks first,
 * is reported in a toast, and taking a custom firmware away can be undone. When someone else changed the device
 * meanwhile (412), the confirmation stays open with the operator's choice, now on top of the current version.
 */
export function FirmwareCard({ device, busy, save }: DeviceCardProps) {
  const firmwares = useQuery(firmwaresQuery());
  // The asked change (null: back to the default) and what it replaces; kept while the dialog closes so its text does
  // not flicker. After a conflict it replaces what the device has now.
  const [asked, setAsked] = useState<{ next: string | null; before: string | null } | null>(null);
  const [open, setOpen] = useState(false);
  const [conflicted, setConflicted] = useState(false);
  const options = [
    { label: "Default device firmware", value: DEFAULT },
    ...(firmwares.data ?? []).map(firmwareOption),
  ];
  const nameOf = (id: string | null) =>
    id === null ? "the default device firmware" : firmwares.data?.find((f) => f._id === id)?.name ?? id;
  const current = device.firmware;
  const id = device.deviceId;
  const next = asked?.next ?? null;
  const before = conflicted ? current : asked?.before ?? null;

  const confirm = async () => {
    if (!asked) return;
    setConflicted(false);
    let kept = false;
    await save({ firmware: next }, {
      summary: next === null ? "Custom firmware cleared" : "Custom firmware set",
      detail: next === null ? `Device ${id} gets the default device firmware.` : `Device ${id} gets ${nameOf(next)}.`,
      // Taking a custom firmware away (clearing or replacing it) can be undone.
      undo: before !== null ? { firmware: before } : undefined,
      focus: byId(INPUT_ID),
      onConflict: () => {
        kept = true;
        setConflicted(true);
      },
    });
    if (!kept) setOpen(false);
  };
  const text = firmwareConfirm(id, next === null ? null : nameOf(next), before === null ? null : nameOf(before));

  return (
    <Card title="Custom device firmware">
      <label htmlFor={INPUT_ID} className="visually-hidden">Custom device firmware</label>
      <Dropdown
        inputId={INPUT_ID}
        value={current ?? DEFAULT}
        options={options}
        optionDisabled="disabled"
        loading={firmwares.isPending}
        disabled={busy || firmwares.isPending}
        onChange={(e) => {
          const next = e.value === DEFAULT ? null : (e.value as string);
          if (next !== current) {
            setAsked({ next, before: current });
            setConflicted(false);
            setOpen(true);
          }
        }}
        className="w-full"
        pt={dropdownA11y("Custom device firmware")}
      />
      <ConfirmDialog
        visible={open}
        header={text.header}
        message={text.message}
        details={conflicted && (
          <ConflictNotice
            item="device"
            current={current === null ? "no custom firmware" : `custom firmware ${nameOf(current)}`}
            action={text.accept}
          />
        )}
        destructive={next === null}
        busy={busy}
        acceptLabel={text.accept}
        cancelLabel={text.keep}
        onHide={() => setOpen(false)}
        onAccept={confirm}
      />
    </Card>
  );
}
