import { useQuery } from "@tanstack/react-query";
import { Card } from "primereact/card";
import { Dropdown } from "primereact/dropdown";
import { firmwaresQuery } from "../firmwares/api.ts";
import type { DeviceCardProps } from "./types.ts";

const DEFAULT = "__default__";

/** 'Custom device firmware': the device type's default, or one uploaded firmware for this device. */
export function FirmwareCard({ device, busy, save }: DeviceCardProps) {
  const firmwares = useQuery(firmwaresQuery());
  const options = [
    { label: "Default device firmware", value: DEFAULT },
    ...(firmwares.data ?? []).map((f) => ({ label: f.name, value: f._id })),
  ];
  return (
    <Card title="Custom device firmware">
      <label htmlFor="device-firmware" className="visually-hidden">Custom device firmware</label>
      <Dropdown
        inputId="device-firmware"
        value={device.firmware ?? DEFAULT}
        options={options}
        loading={firmwares.isPending}
        disabled={busy || firmwares.isPending}
        onChange={(e) => {
          const next = e.value === DEFAULT ? null : (e.value as string);
          if (next !== device.firmware) void save({ firmware: next });
        }}
        className="w-full"
      />
    </Card>
  );
}
