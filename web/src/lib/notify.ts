import { useCallback } from "react";
import { ApiError } from "../../../shared/client.ts";

export interface ToastMessage {
  severity: "success" | "info" | "warn" | "error";
  summary: string;
  detail: string;
  life?: number;
}

type Show = (message: ToastMessage) => void;
let show: Show | null = null;

/** Called by <Notifications/> (the one Toast of the app) when it mounts and unmounts. */
export function registerToast(fn: Show | null): void {
  show = fn;
}

/** The server's msg for an ApiError, else the error's message. */
export function errorMessage(err: unknown): string {
  if (err instanceof ApiError) return err.msg;
  if (err instanceof Error) return err.message;
  return String(err);
}

/** CONTRACT §9: every failed mutation shows a toast with the server's msg. */
export function useNotifyError(): (err: unknown) => void {
  return useCallback((err: unknown) => {
    show?.({ severity: "error", summary: "Error", detail: errorMessage(err), life: 8000 });
  }, []);
}

/** A success toast: `notify("Saved")` or `notify("Saved", "Product type renamed.")`. */
export function useNotify(): (summary: string, detail?: string) => void {
  return useCallback((summary: string, detail = "") => {
    show?.({ severity: "success", summary, detail, life: 3000 });
  }, []);
}
