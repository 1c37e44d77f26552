import { useCallback } from "react";
import { isPreconditionFailed } from "../../../../shared/client.ts";
import { focusWhenReady } from "../../lib/focus.ts";
import { changedElsewhere, useNotify, useNotifyConflict, useNotifyError } from "../../lib/notify.ts";
import { usePatchDevice, useReloadDevice, useShownDevice } from "./api.ts";
import type { ChangeReport, DeviceChange } from "./types.ts";

/**
 * PATCHes one device on the version shown and reports the outcome: a success toast (with Undo when the report carries
 * the previous values), the server's msg in an error toast, and focus back on the changed control either way. When
 * someone else changed the device since it was loaded, nothing is saved: the current version is loaded and shown, and
 * the open dialog (report.onConflict) or a toast asks to apply the change again.
 */
export function useDeviceSave(deviceId: string) {
  const patch = usePatchDevice();
  const shown = useShownDevice(deviceId);
  const reload = useReloadDevice(deviceId);
  const notify = useNotify();
  const notifyError = useNotifyError();
  const notifyConflict = useNotifyConflict();

  const save = useCallback(async (body: DeviceChange, report?: ChangeReport): Promise<boolean> => {
    try {
      await patch.mutateAsync({ patch: { deviceId, ...body }, ifMatch: shown()?.etag });
    } catch (err) {
      if (isPreconditionFailed(err)) {
        await reload();
        if (report?.onConflict) report.onConflict();
        else notifyConflict(changedElsewhere("device"));
      } else {
        notifyError(err);
      }
      if (report?.focus) focusWhenReady(report.focus);
      return false;
    }
    if (report) {
      const { undo } = report;
      const undoIt = undo
        ? () =>
          void save(undo, {
            summary: "Change undone",
            detail: report.detail ? `Undone: ${report.detail}` : undefined,
            focus: report.undoFocus ?? report.focus,
          })
        : undefined;
      notify(report.summary, report.detail, undoIt);
      if (report.focus) focusWhenReady(report.focus);
    }
    return true;
  }, [deviceId, patch.mutateAsync, shown, reload, notify, notifyError, notifyConflict]);

  return { save, busy: patch.isPending };
}
