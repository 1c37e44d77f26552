import { useCallback } from "react";
import { focusWhenReady } from "../../lib/focus.ts";
import { useNotify, useNotifyError } from "../../lib/notify.ts";
import { usePatchDevice } from "./api.ts";
import type { ChangeReport, DeviceChange } from "./types.ts";

/**
 * PATCHes one device and reports the outcome: a success toast (with Undo when the report carries the previous values),
 * the server's msg in an error toast, and focus back on the changed control either way.
 */
export function useDeviceSave(deviceId: string) {
  const patch = usePatchDevice();
  const notify = useNotify();
  const notifyError = useNotifyError();

  const save = useCallback(async (body: DeviceChange, report?: ChangeReport): Promise<boolean> => {
    try {
      await patch.mutateAsync({ deviceId, ...body });
    } catch (err) {
      notifyError(err);
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
  }, [deviceId, patch.mutateAsync, notify, notifyError]);

  return { save, busy: patch.isPending };
}
