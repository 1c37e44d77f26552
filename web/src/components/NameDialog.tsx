import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { Button } from "primereact/button";
import { InputText } from "primereact/inputtext";
import { AppDialog } from "./AppDialog.tsx";
import { useFieldError } from "../lib/useFieldError.ts";

export interface NameDialogProps {
  visible: boolean;
  header: string;
  placeholder: string;
  initial?: string;
  /** The longest name the server takes (default 200). */
  maxLength?: number;
  /** The submit button's label (default OK). */
  okLabel?: string;
  busy?: boolean;
  /** Why the server refused the name, shown under the field until the text changes. */
  error?: string | null;
  /** Shown above the field (e.g. that someone else changed the item meanwhile: ConflictNotice). */
  notice?: ReactNode;
  /** Receives the trimmed name; the caller closes the dialog when the change worked. */
  onSubmit: (name: string) => void;
  onHide: () => void;
}

/** Asks for one name (add or rename a product type, rename a saved view); OK is disabled while the trimmed text is empty. Enter submits. */
export function NameDialog(
  {
    visible,
    header,
    placeholder,
    initial = "",
    maxLength = 200,
    okLabel = "OK",
    busy,
    error,
    notice,
    onSubmit,
    onHide,
  }: NameDialogProps,
) {
  const id = useId();
  const errorId = useId();
  const [name, setName] = useState(initial);
  // The field starts from `initial` when the dialog opens; a new `initial` while it is open (the item reloaded after
  // someone else changed it) leaves what the operator typed.
  const typed = useRef(false);
  useEffect(() => {
    if (!visible) typed.current = false;
    else if (!typed.current) setName(initial);
  }, [visible, initial]);
  const shownError = useFieldError(error, name, id);
  const trimmed = name.trim();
  const canSubmit = trimmed.length > 0 && !busy;

  return (
    <AppDialog
      visible={visible}
      header={header}
      onHide={onHide}
      style={{ width: "30rem", maxWidth: "95vw" }}
      footer={
        <div>
          <Button label="Cancel" icon="pi pi-times" outlined onClick={onHide} />
          <Button
            label={okLabel}
            icon="pi pi-check"
            disabled={!canSubmit}
            loading={busy}
            onClick={() => onSubmit(trimmed)}
          />
        </div>
      }
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (canSubmit) onSubmit(trimmed);
        }}
        style={{ display: "flex", flexDirection: "column", gap: "0.5rem" }}
      >
        {notice}
        <label htmlFor={id}>Name</label>
        <InputText
          id={id}
          value={name}
          onChange={(e) => {
            typed.current = true;
            setName(e.target.value);
          }}
          placeholder={placeholder}
          maxLength={maxLength}
          autoFocus
          invalid={!!shownError}
          aria-invalid={!!shownError}
          aria-describedby={shownError ? errorId : undefined}
        />
        {shownError && <small id={errorId} className="field-error">{shownError}</small>}
      </form>
    </AppDialog>
  );
}
