import type { Device, DevicePatch } from "../../../../shared/schemas/mod.ts";

/** The fields of a device an operator changes (the PATCH body without deviceId). */
export type DeviceChange = Omit<DevicePatch, "deviceId">;

/** How a saved change is reported: a toast, maybe an Undo, and where keyboard focus goes afterwards. */
export interface ChangeReport {
  summary: string;
  detail?: string;
  /** Puts the previous values back; given for changes that take something away, the toast then offers Undo. */
  undo?: DeviceChange;
  /** The control that was changed (focus returns to it once the save is done, it is disabled meanwhile). */
  focus?: () => HTMLElement | null;
  /** Where focus goes after an Undo, if not `focus`. */
  undoFocus?: () => HTMLElement | null;
  /**
   * Someone else changed the device since it was shown (412): the current version has been loaded and nothing saved.
   * Given by a dialog that stays open with the operator's choice to apply it again; without it a toast says so.
   */
  onConflict?: () => void;
}

/** What each card of the device detail gets: the device, whether a save runs, and save (resolves true on success). */
export interface DeviceCardProps {
  device: Device;
  busy: boolean;
  save: (patch: DeviceChange, report?: ChangeReport) => Promise<boolean>;
}
