import { Button } from "primereact/button";
import { InputText } from "primereact/inputtext";
import { Message } from "primereact/message";
import { type FormEvent, useId, useState } from "react";
import { AppDialog } from "../components/AppDialog.tsx";
import { signInFailure } from "../features/auth/validation.ts";
import { api } from "../lib/api.ts";
import { type EndedSession, leaveSession, resumeSession } from "../lib/sessionEnd.ts";

/**
 * The sign-in dialog over the page when the session ended with the app open: the same person signs in again and the
 * page goes on where it was (a change confirmed meanwhile is sent then), or signs out.
 */
export default function SessionDialog({ ended }: { ended: EndedSession }) {
  const passwordId = useId();
  const [password, setPassword] = useState("");
  const [failed, setFailed] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e?: FormEvent) {
    e?.preventDefault();
    if (!password) {
      setFailed("Please enter your password.");
      return;
    }
    setBusy(true);
    setFailed(null);
    try {
      const { token } = await api.login(ended.email, password);
      resumeSession(token);
    } catch (err) {
      setFailed(signInFailure(err));
      setBusy(false);
    }
  }

  return (
    <AppDialog
      visible
      closable={false}
      header="Sign in again"
      onHide={() => {}}
      className="session-dialog"
      style={{ width: "28rem", maxWidth: "95vw" }}
      footer={
        <div>
          <Button label="Sign out" icon="pi pi-sign-out" outlined onClick={leaveSession} disabled={busy} />
          <Button label="Sign in" icon="pi pi-sign-in" loading={busy} disabled={busy} onClick={() => submit()} />
        </div>
      }
    >
      <form onSubmit={submit} style={{ display: "flex", flexDirection: "column", gap: "0.75rem" }}>
        <p className="m-0">
          {ended.expired
            ? "Your session has expired."
            : "Your session has ended: your role or password may have been changed, or you were signed out."}{" "}
          Sign in again as <strong>{ended.email}</strong>{" "}
          to go on where you were: a change you confirmed is sent once you are signed in. Signing out instead drops it.
        </p>
        <label htmlFor={passwordId}>Password</label>
        <InputText
          id={passwordId}
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          aria-invalid={failed !== null}
        />
        {failed && <Message severity="error" text={failed} role="alert" />}
      </form>
    </AppDialog>
  );
}
