import { Button } from "primereact/button";
import { InputText } from "primereact/inputtext";
import { Message } from "primereact/message";
import { type FormEvent, useState } from "react";
import { AppDialog } from "../../components/AppDialog.tsx";
import { api } from "../../lib/api.ts";
import { errorMessage, fieldError } from "../../lib/messages.ts";
import { focusWhenReady } from "../../lib/focus.ts";
import { signIn } from "../../lib/session.ts";
import { canSavePassword } from "./validation.ts";
import { MIN_PASSWORD_LENGTH } from "../../../../shared/schemas/auth.ts";

export interface ChangePasswordDialogProps {
  visible: boolean;
  onHide: () => void;
  /** The signed-in operator's e-mail: the server revokes earlier tokens, so we sign in again with the new password. */
  identity: string;
  /** Changes the password and signs in again; rejects with the server's error. */
  onChange?: (current: string, next: string) => Promise<void>;
}

type Field = "current" | "new";

/** Which field a refused change is about, and the sentence to show under it; null for other failures. */
export function passwordFieldError(err: unknown): { field: Field; text: string } | null {
  // The server's answer to a wrong current password names no field.
  if (err instanceof Error && err.message === "Current password is incorrect.") {
    return { field: "current", text: err.message };
  }
  const f = fieldError(err);
  if (f?.path === "old_password") return { field: "current", text: f.text };
  if (f?.path === "new_password") return { field: "new", text: f.text };
  return null;
}

async function changeAndSignInAgain(identity: string, current: string, next: string) {
  await api.changePassword({ old_password: current, new_password: next });
  await signIn(identity, next);
}

/** Change password dialog. */
export function ChangePasswordDialog({ visible, onHide, identity, onChange }: ChangePasswordDialogProps) {
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [confirmation, setConfirmation] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [fieldErr, setFieldErr] = useState<{ field: Field; text: string } | null>(null);
  const [busy, setBusy] = useState(false);

  function reset() {
    setCurrent("");
    setNext("");
    setConfirmation("");
    setError(null);
    setFieldErr(null);
    setBusy(false);
  }

  function close() {
    if (busy) return;
    reset();
    onHide();
  }

  async function save(e?: FormEvent) {
    e?.preventDefault();
    if (!canSavePassword(current, next, confirmation) || busy) return;
    setBusy(true);
    setError(null);
    setFieldErr(null);
    try {
      await (onChange ?? ((c, n) => changeAndSignInAgain(identity, c, n)))(current, next);
      reset();
      onHide();
    } catch (err) {
      const onField = passwordFieldError(err);
      setFieldErr(onField);
      setError(onField ? "Please correct the field marked below." : errorMessage(err));
      setBusy(false);
      // Save was disabled while saving: focus goes to the field to correct, else the first field.
      focusWhenReady(() => document.getElementById(onField?.field === "new" ? "cp-new" : "cp-current"));
    }
  }

  const mismatch = confirmation !== "" && confirmation !== next;
  return (
    <AppDialog
      visible={visible}
      onHide={close}
      closable={!busy}
      header="Change password"
      style={{ width: "28rem", maxWidth: "95vw" }}
      footer={
        <div>
          <Button label="Cancel" icon="pi pi-times" outlined onClick={close} disabled={busy} />
          <Button
            label="Save"
            icon="pi pi-check"
            onClick={() => save()}
            loading={busy}
            disabled={busy || !canSavePassword(current, next, confirmation)}
          />
        </div>
      }
    >
      <form className="form-grid" onSubmit={save}>
        {error !== null && (
          <Message
            severity="error"
            role="alert"
            className="w-full mb-3"
            content={
              <div>
                <strong>Error changing password</strong>
                <div>{error}</div>
              </div>
            }
          />
        )}
        <div className="field">
          <label htmlFor="cp-current">Current password</label>
          <InputText
            id="cp-current"
            type="password"
            autoComplete="current-password"
            autoFocus
            value={current}
            onChange={(e) => setCurrent(e.target.value)}
            invalid={fieldErr?.field === "current"}
            aria-invalid={fieldErr?.field === "current"}
            aria-describedby={fieldErr?.field === "current" ? "cp-current-error" : undefined}
          />
          {fieldErr?.field === "current" && <small id="cp-current-error" className="field-error">{fieldErr.text}
          </small>}
        </div>
        <div className="field">
          <label htmlFor="cp-new">New password</label>
          <InputText
            id="cp-new"
            type="password"
            autoComplete="new-password"
            value={next}
            onChange={(e) => setNext(e.target.value)}
            invalid={fieldErr?.field === "new"}
            aria-invalid={fieldErr?.field === "new"}
            aria-describedby={fieldErr?.field === "new" ? "cp-new-error" : "cp-new-hint"}
          />
          {fieldErr?.field === "new"
            ? <small id="cp-new-error" className="field-error">{fieldErr.text}</small>
            : <small id="cp-new-hint" className="text-secondary">At least {MIN_PASSWORD_LENGTH} characters.</small>}
        </div>
        <div className="field">
          <label htmlFor="cp-confirm">New password (confirmation)</label>
          <InputText
            id="cp-confirm"
            type="password"
            autoComplete="new-password"
            value={confirmation}
            onChange={(e) => setConfirmation(e.target.value)}
            invalid={mismatch}
            aria-invalid={mismatch}
          />
        </div>
        {/* Enter in a field submits when Save is enabled. */}
        <button type="submit" hidden />
      </form>
    </AppDialog>
  );
}
