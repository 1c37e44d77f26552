import { useQuery } from "@tanstack/react-query";
import { Card } from "primereact/card";
import { Dropdown } from "primereact/dropdown";
import { dropdownA11y } from "../../components/dropdownA11y.ts";
import { useState } from "react";
import { ConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { byId } from "../../lib/focus.ts";
import { firmwareOption, firmwaresQuery } from "../firmwares/api.ts";
import type { DeviceCardProps } from "./types.ts";

const DEFAULT = "__default__";
const INPUT_ID = "device-firmware";

/**
 * 'Custom device firmware': the device type's default, or one uploaded firmware for this device. A change asks first,
 * is reported in a toast, and taking a custom firmware away can be undone.
 */
export function FirmwareCard({ device, busy, save }: DeviceCardProps) {
  const firmwares = useQuery(firmwaresQuery());
  // The asked change (null: back to the default); kept while the dialog closes so its text does not flicker.
  const [asked, setAsked] = useState<{ next: string | null; before: string | null } | null>(null);
  const [open, setOpen] = useState(false);
  const options = [
    { label: "Default device firmware", value: DEFAULT },
    ...(firmwares.data ?? []).map(firmwareOption),
  ];
  const nameOf = (id: string | null) =>
    id === null ? "the default device firmware" : firmwares.data?.find((f) => f._id === id)?.name ?? id;
  const current = device.firmware;
  const id = device.deviceId;

  const confirm = async () => {
    if (!asked) return;
    const { next, before } = asked;
    await save({ firmware: next }, {
      summary: next === null ? "Custom firmware cleared" : "Custom firmware set",
      detail: next === null ? `Device ${id} gets the default device firmware.` : `Device ${id} gets ${nameOf(next)}.`,
      // Taking a custom firmware away (clearing or replacing it) can be undone.
      undo: before !== null ? { firmware: before } : undefined,
      focus: byId(INPUT_ID),
    });
    setOpen(false);
  };
  const next = asked?.next ?? null;
  const before = asked?.before ?? null;

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
            setOpen(true);
          }
        }}
        className="w-full"
        pt={dropdownA11y("Custom device firmware")}
      />
      <ConfirmDialog
        visible={open}
        header={next === null ? "Clear custom firmware?" : `Set custom firmware to ${nameOf(next)}?`}
        message={`Device ${id} will install ${nameOf(next)} at its next update instead of ${nameOf(before)}.`}
        destructive={next === null}
        busy={busy}
        onHide={() => setOpen(false)}
        onAccept={confirm}
      />
    </Card>
  );
}
