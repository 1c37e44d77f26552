import { Button } from "primereact/button";
import { InputText } from "primereact/inputtext";
import { Message } from "primereact/message";
import { type FormEvent, useState } from "react";
import { AppDialog } from "../../components/AppDialog.tsx";
import { api } from "../../lib/api.ts";
import { errorMessage } from "../../lib/notify.ts";
import { signIn } from "../../lib/session.ts";
import { canSavePassword } from "./validation.ts";

export interface ChangePasswordDialogProps {
  visible: boolean;
  onHide: () => void;
  /** The signed-in operator's e-mail: the server revokes earlier tokens, so we sign in again with the new password. */
  identity: string;
  /** Changes the password and signs in again; rejects with the server's error. */
  onChange?: (current: string, next: string) => Promise<void>;
}

async function changeAndSignInAgain(identity: string, current: string, next: string) {
  await api.changePassword({ old_password: current, new_password: next });
  await signIn(identity, next);
}

/** SPEC "Change password dialog". */
export function ChangePasswordDialog({ visible, onHide, identity, onChange }: ChangePasswordDialogProps) {
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [confirmation, setConfirmation] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  function reset() {
    setCurrent("");
    setNext("");
    setConfirmation("");
    setError(null);
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
    try {
      await (onChange ?? ((c, n) => changeAndSignInAgain(identity, c, n)))(current, next);
      reset();
      onHide();
    } catch (err) {
      setError(errorMessage(err));
      setBusy(false);
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
            className="w-full"
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
          />
        </div>
        <div className="field">
          <label htmlFor="cp-new">New password</label>
          <InputText
            id="cp-new"
            type="password"
            autoComplete="new-password"
            value={next}
            onChange={(e) => setNext(e.target.value)}
          />
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
