import { useEffect, useId, useState } from "react";
import { Button } from "primereact/button";
import { Dropdown } from "primereact/dropdown";
import { InputText } from "primereact/inputtext";
import { Password } from "primereact/password";
import { MIN_PASSWORD_LENGTH } from "../../../../shared/schemas/auth.ts";
import type { Role } from "../../../../shared/schemas/operator.ts";
import { AppDialog } from "../../components/AppDialog.tsx";
import { dropdownA11y } from "../../components/dropdownA11y.ts";

export const ROLE_OPTIONS: { label: string; value: Role }[] = [
  { label: "Admin", value: "admin" },
  { label: "Operator", value: "operator" },
  { label: "Viewer", value: "viewer" },
];

/** A password field with its label and the length rule. */
function PasswordField({ id, value, onChange, label }: {
  id: string;
  value: string;
  onChange: (v: string) => void;
  label: string;
}) {
  const hintId = `${id}-hint`;
  return (
    <div style={{ display: "flex", flexDirection: "column", gap: "0.35rem" }}>
      <label htmlFor={id}>{label}</label>
      <Password
        inputId={id}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        feedback={false}
        toggleMask
        autoComplete="new-password"
        aria-describedby={hintId}
        inputStyle={{ width: "100%" }}
        style={{ width: "100%" }}
        pt={{ hideIcon: { "aria-hidden": true }, showIcon: { "aria-hidden": true } }}
      />
      <small id={hintId}>At least {MIN_PASSWORD_LENGTH} characters.</small>
    </div>
  );
}

/** Add operator: e-mail, role (default operator), first password. */
export function AddOperatorDialog({ visible, busy, onSubmit, onHide }: {
  visible: boolean;
  busy: boolean;
  onSubmit: (body: { email: string; role: Role; password: string }) => void;
  onHide: () => void;
}) {
  const emailId = useId();
  const roleId = useId();
  const passwordId = useId();
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("operator");
  const [password, setPassword] = useState("");
  useEffect(() => {
    if (!visible) return;
    setEmail("");
    setRole("operator");
    setPassword("");
  }, [visible]);
  const ok = /^[^\s@]+@[^\s@]+$/.test(email.trim()) && password.length >= MIN_PASSWORD_LENGTH && !busy;
  const submit = () => ok && onSubmit({ email: email.trim(), role, password });
  return (
    <AppDialog
      visible={visible}
      header="Add operator"
      onHide={onHide}
      style={{ width: "30rem", maxWidth: "95vw" }}
      footer={
        <div>
          <Button label="Cancel" icon="pi pi-times" outlined onClick={onHide} />
          <Button label="Add" icon="pi pi-check" disabled={!ok} loading={busy} onClick={submit} />
        </div>
      }
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
        style={{ display: "flex", flexDirection: "column", gap: "0.75rem" }}
      >
        <div style={{ display: "flex", flexDirection: "column", gap: "0.35rem" }}>
          <label htmlFor={emailId}>E-mail</label>
          <InputText id={emailId} type="email" value={email} onChange={(e) => setEmail(e.target.value)} autoFocus />
        </div>
        <div style={{ display: "flex", flexDirection: "column", gap: "0.35rem" }}>
          <label htmlFor={roleId}>Role</label>
          <Dropdown
            inputId={roleId}
            value={role}
            options={ROLE_OPTIONS}
            onChange={(e) => setRole(e.value as Role)}
            pt={dropdownA11y("Role")}
          />
        </div>
        <PasswordField id={passwordId} value={password} onChange={setPassword} label="First password" />
      </form>
    </AppDialog>
  );
}

/** Reset an operator's password: their sessions end at once. */
export function ResetPasswordDialog({ email, busy, onSubmit, onHide }: {
  email: string | null;
  busy: boolean;
  onSubmit: (password: string) => void;
  onHide: () => void;
}) {
  const id = useId();
  const [password, setPassword] = useState("");
  useEffect(() => setPassword(""), [email]);
  const ok = password.length >= MIN_PASSWORD_LENGTH && !busy;
  return (
    <AppDialog
      visible={email !== null}
      header={`Reset password of ${email ?? ""}`}
      onHide={onHide}
      style={{ width: "30rem", maxWidth: "95vw" }}
      footer={
        <div>
          <Button label="Cancel" icon="pi pi-times" outlined onClick={onHide} />
          <Button
            label="Reset"
            icon="pi pi-check"
            disabled={!ok}
            loading={busy}
            onClick={() => ok && onSubmit(password)}
          />
        </div>
      }
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (ok) onSubmit(password);
        }}
        style={{ display: "flex", flexDirection: "column", gap: "0.75rem" }}
      >
        <p style={{ margin: 0 }}>Their sessions end at once; tell them the new password by another channel.</p>
        <PasswordField id={id} value={password} onChange={setPassword} label="New password" />
      </form>
    </AppDialog>
  );
}
