import { useCallback } from "react";
import { ApiError } from "../../../shared/client.ts";
import { errorMessage } from "./messages.ts";

export { errorMessage } from "./messages.ts";

export interface ToastMessage {
  severity: "success" | "info" | "warn" | "error";
  summary: string;
  detail: string;
  life?: number;
  /** Shows an Undo button; clicking it closes the toast and runs this. */
  undo?: () => void;
  /** A link below the text (a refusal that names devices links to the list filtered to them). */
  link?: { href: string; label: string };
}

/**
 * How long toasts stay (ms). They sit bottom right, away from the page's own buttons, pause while hovered and can be
 * closed at once; an error stays long enough to read, an Undo long enough to reach.
 */
export const TOAST_LIFE = { success: 3000, undo: 8000, error: 6000, conflict: 10000 } as const;

type Show = (message: ToastMessage) => void;
let show: Show | null = null;

/** Called by <Notifications/> (the one Toast of the app) when it mounts and unmounts. */
export function registerToast(fn: Show | null): void {
  show = fn;
}

/**
 * Every failed mutation shows a toast with the server's msg, in words. A change one's role forbids (403: e.g. after
 * signing in again with a role changed meanwhile) says plainly that it was not saved.
 */
export function useNotifyError(): (err: unknown, link?: ToastMessage["link"]) => void {
  return useCallback((err: unknown, link?: ToastMessage["link"]) => {
    const forbidden = err instanceof ApiError && err.status === 403;
    show?.({
      severity: "error",
      summary: forbidden ? "Not saved" : "Error",
      detail: forbidden ? `Not saved: ${errorMessage(err)}` : errorMessage(err),
      life: link ? TOAST_LIFE.conflict : TOAST_LIFE.error,
      link,
    });
  }, []);
}

/** What the console says when a change was refused because someone else changed the item first. */
export const changedElsewhere = (item: string) =>
  `This ${item} was changed by someone else. The current version is shown; apply your change again.`;

/**
 * A change refused because someone else changed the item since it was loaded (412): the caller has loaded the current
 * version; this says so, long enough to read, so the operator can apply the change again on what is shown now.
 */
export function useNotifyConflict(): (detail: string) => void {
  return useCallback((detail: string) => {
    show?.({ severity: "warn", summary: "Changed by someone else", detail, life: TOAST_LIFE.conflict });
  }, []);
}

/**
 * A success toast: `notify("Saved")`, `notify("Saved", "Product type renamed.")`, or with an Undo button:
 * `notify("Treatment removed", "Knee relief", () => restore())`.
 */
export function useNotify(): (summary: string, detail?: string, undo?: () => void) => void {
  return useCallback((summary: string, detail = "", undo?: () => void) => {
    show?.({ severity: "success", summary, detail, life: undo ? TOAST_LIFE.undo : TOAST_LIFE.success, undo });
  }, []);
}
