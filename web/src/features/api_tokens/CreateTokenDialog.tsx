import { useEffect, useId, useRef, useState } from "react";
import { Button } from "primereact/button";
import { Checkbox } from "primereact/checkbox";
import { Dropdown } from "primereact/dropdown";
import { InputText } from "primereact/inputtext";
import { Message } from "primereact/message";
import { type CreatedApiToken, roleAllowsScope, type Scope, SCOPES } from "../../../../shared/schemas/api_token.ts";
import type { Role } from "../../../../shared/schemas/operator.ts";
import { AppDialog } from "../../components/AppDialog.tsx";
import { dropdownA11y } from "../../components/dropdownA11y.ts";
import { useNotifyError } from "../../lib/notify.ts";
import { useCreateApiToken } from "./api.ts";

/** What each scope lets a token do, as the dialog explains it. */
export const SCOPE_TEXT: Record<Scope, string> = {
  read: "Read everything (devices, treatments, product types, firmwares)",
  "firmware:write": "Upload and delete firmwares, set the default firmware",
  "treatments:write": "Import treatments",
  "devices:write": "Change and remove devices",
  "product_types:write": "Add, change and delete product types",
};

const EXPIRY = [
  { label: "Never", value: 0 },
  { label: "In 7 days", value: 7 },
  { label: "In 30 days", value: 30 },
  { label: "In 90 days", value: 90 },
  { label: "In 1 year", value: 365 },
];

/** Copies text to the clipboard; falls back to selecting the field and the browser's copy command. */
async function copy(text: string, field: HTMLInputElement | null): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    field?.select();
    return document.execCommand?.("copy") ?? false;
  }
}

/**
 * Makes an API token: name, scopes (those beyond one's role are disabled), optional expiry. Once made, the dialog shows
 * the secret with a copy button and says it will not be shown again; closing it forgets the secret.
 */
export function CreateTokenDialog(
  { visible, role, onHide }: { visible: boolean; role: Role | undefined; onHide: () => void },
) {
  const nameId = useId();
  const expiryId = useId();
  const secretId = useId();
  const scopeId = useId();
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<Scope[]>(["read"]);
  const [days, setDays] = useState(90);
  const [made, setMade] = useState<CreatedApiToken | null>(null);
  const [copied, setCopied] = useState<"yes" | "no" | null>(null);
  /** Closing the secret asks first: "did you copy it?" (Escape, the close icon and Done alike). */
  const [asking, setAsking] = useState(false);
  const secretRef = useRef<HTMLInputElement>(null);
  const create = useCreateApiToken();
  const notifyError = useNotifyError();

  useEffect(() => {
    if (!visible) return;
    setName("");
    setScopes(["read"]);
    setDays(90);
    setMade(null);
    setCopied(null);
    setAsking(false);
  }, [visible]);

  const trimmed = name.trim();
  const canCreate = trimmed.length > 0 && scopes.length > 0 && !create.isPending;
  const allowed = (s: Scope) => role !== undefined && roleAllowsScope(role, s);

  const submit = () => {
    if (!canCreate) return;
    const expiresAt = days ? new Date(Date.now() + days * 86_400_000).toISOString() : undefined;
    create.mutate({ name: trimmed, scopes, ...(expiresAt ? { expiresAt } : {}) }, {
      // The dialog itself says so (a toast would sit under its mask).
      onSuccess: setMade,
      onError: (err) => notifyError(err),
    });
  };

  const close = () => {
    setMade(null);
    setAsking(false);
    onHide();
  };
  // With the secret shown, a first close asks; Escape while asking goes back to the secret (the innermost layer).
  const requestClose = () => {
    if (!made) return close();
    setAsking((now) => !now);
  };

  return (
    <AppDialog
      visible={visible}
      header={made ? `API token ${made.name} created` : "Create API token"}
      onHide={requestClose}
      style={{ width: "36rem", maxWidth: "95vw" }}
      footer={made
        ? (
          asking
            ? (
              <div>
                <Button label="Back to the token" icon="pi pi-arrow-left" outlined autoFocus onClick={requestClose} />
                <Button label="Close, I copied it" icon="pi pi-check" onClick={close} />
              </div>
            )
            : (
              <div>
                <Button label="Done" icon="pi pi-check" onClick={requestClose} />
              </div>
            )
        )
        : (
          <div>
            <Button label="Cancel" icon="pi pi-times" outlined onClick={close} />
            <Button
              label="Create"
              icon="pi pi-check"
              disabled={!canCreate}
              loading={create.isPending}
              onClick={submit}
            />
          </div>
        )}
    >
      {made
        ? (
          <div style={{ display: "flex", flexDirection: "column", gap: "0.75rem" }}>
            <Message
              severity="warn"
              text="Copy this token now: you will not see it again. Keep it in your CI's secret store."
            />
            <label htmlFor={secretId}>Token</label>
            <div style={{ display: "flex", gap: "0.5rem" }}>
              <InputText
                id={secretId}
                ref={secretRef}
                value={made.token}
                readOnly
                className="token-secret"
                style={{ flex: 1, fontFamily: "monospace" }}
                onFocus={(e) => e.target.select()}
              />
              <Button
                icon={copied === "yes" ? "pi pi-check" : "pi pi-copy"}
                label="Copy"
                outlined
                onClick={async () => setCopied(await copy(made.token, secretRef.current) ? "yes" : "no")}
              />
            </div>
            <span role="status" className="token-copy-status">
              {copied === "yes"
                ? "Copied to the clipboard."
                : copied === "no"
                ? "The browser did not allow copying: select the token and copy it."
                : ""}
            </span>
            {asking && (
              <Message
                severity="warn"
                role="alert"
                className="token-close-question"
                text={copied === "yes"
                  ? "Did you keep the copied token somewhere safe? Once closed, it cannot be shown again."
                  : "Did you copy the token? Once closed, it cannot be shown again."}
              />
            )}
            <p style={{ margin: 0 }}>
              Send it as <code>Authorization: Bearer &lt;token&gt;</code>, or to the CLI as <code>CONSOLE_TOKEN</code>.
            </p>
          </div>
        )
        : (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              submit();
            }}
            style={{ display: "flex", flexDirection: "column", gap: "0.75rem" }}
          >
            <div style={{ display: "flex", flexDirection: "column", gap: "0.35rem" }}>
              <label htmlFor={nameId}>Name</label>
              <InputText
                id={nameId}
                value={name}
                onChange={(e) => setName(e.target.value)}
                placeholder="What the token is for, e.g. nightly firmware upload"
                maxLength={200}
                autoFocus
              />
            </div>
            <fieldset style={{ border: 0, padding: 0, margin: 0 }}>
              <legend style={{ marginBottom: "0.35rem" }}>Scopes</legend>
              {SCOPES.map((s) => (
                <div key={s} style={{ display: "flex", alignItems: "center", gap: "0.5rem", padding: "0.2rem 0" }}>
                  <Checkbox
                    inputId={`${scopeId}-${s}`}
                    checked={scopes.includes(s)}
                    disabled={!allowed(s)}
                    onChange={(e) =>
                      setScopes((now) =>
                        e.checked
                          ? [
                            ...now.filter((x) =>
                              x !== s
                            ),
                            s,
                          ]
                          : now.filter((x) => x !== s)
                      )}
                  />
                  <label htmlFor={`${scopeId}-${s}`}>
                    <code>{s}</code> — {SCOPE_TEXT[s]}
                    {!allowed(s) && role !== undefined ? " (beyond your role)" : ""}
                  </label>
                </div>
              ))}
            </fieldset>
            <div style={{ display: "flex", flexDirection: "column", gap: "0.35rem" }}>
              <label htmlFor={expiryId}>Expires</label>
              <Dropdown
                inputId={expiryId}
                value={days}
                options={EXPIRY}
                onChange={(e) => setDays(e.value as number)}
                pt={dropdownA11y("Expires")}
              />
            </div>
          </form>
        )}
    </AppDialog>
  );
}
