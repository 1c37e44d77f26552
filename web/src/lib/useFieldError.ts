import { useEffect, useState } from "react";
import { focusWhenReady } from "./focus.ts";

/**
 * A server's refusal of a field's value, shown while the field still holds the refused value (editing hides it). When
 * a refusal arrives, focus goes back to the field (the dialog's button was disabled while saving).
 */
export function useFieldError(error: string | null | undefined, value: string, inputId: string): string | null {
  const [refused, setRefused] = useState<string | null>(null);
  useEffect(() => {
    if (!error) return;
    setRefused(value);
    focusWhenReady(() => document.getElementById(inputId));
  }, [error]);
  return error && refused === value ? error : null;
}
