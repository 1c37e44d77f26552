import { useEffect, useId, useState } from "react";
import { Button } from "primereact/button";
import { Message } from "primereact/message";
import { InputText } from "primereact/inputtext";
import { formatBytes } from "../../../../shared/format_bytes.ts";
import { APPROVAL_MEANING, type Firmware } from "../../../../shared/schemas/firmware.ts";
import { AppDialog } from "../../components/AppDialog.tsx";
import { focusWhenReady } from "../../lib/focus.ts";
import { formatDateTime } from "../../lib/format.ts";
import { errorMessage, useNotify } from "../../lib/notify.ts";
import { useApproveFirmware } from "./api.ts";
import { signatureText } from "./signatureText.ts";

/**
 * The second person's approval of a pending firmware (two-person release, docs/REQUIREMENTS.md §20): what is being
 * approved (name, SHA-256, signature, uploader), the meaning the person signs ("approved for release") and their
 * password re-entered as the signature. The server's refusal (wrong password 401, the uploader 403, not pending 409,
 * throttled 429) stays in the dialog with the password field cleared; Enter submits; nothing closes it while it runs.
 */
export function ApproveDialog({ firmware, onHide }: { firmware: Firmware | null; onHide: () => void }) {
  const passwordId = useId();
  const errorId = useId();
  const meaningId = useId();
  const [password, setPassword] = useState("");
  const [refusal, setRefusal] = useState<string | null>(null);
  const approve = useApproveFirmware();
  const notify = useNotify();
  const busy = approve.isPending;

  useEffect(() => {
    setPassword("");
    setRefusal(null);
  }, [firmware?._id]);

  const close = () => {
    if (!busy) onHide();
  };
  const submit = () => {
    if (!firmware || !password || busy) return;
    setRefusal(null);
    approve.mutate({ id: firmware._id, password }, {
      onSuccess: (f) => {
        notify("Firmware approved for release", `${f.name} can now be released.`);
        onHide();
      },
      onError: (err) => {
        setPassword("");
        setRefusal(errorMessage(err));
        focusWhenReady(() => document.getElementById(passwordId));
      },
    });
  };

  const f = firmware;
  return (
    <AppDialog
      visible={f !== null}
      header={f ? `Approve firmware ${f.name}` : ""}
      onHide={close}
      closable={!busy}
      style={{ width: "36rem", maxWidth: "95vw" }}
      footer={
        <div>
          <Button label="Cancel" icon="pi pi-times" outlined onClick={close} disabled={busy} />
          <Button
            label="Approve for release"
            icon="pi pi-check"
            disabled={!password || busy}
            loading={busy}
            onClick={submit}
          />
        </div>
      }
    >
      {f && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
          style={{ display: "flex", flexDirection: "column", gap: "0.75rem" }}
        >
          <dl className="approve-facts" style={{ margin: 0 }}>
            <dt>File</dt>
            <dd style={{ wordBreak: "break-all" }}>{f.name} ({formatBytes(f.size)})</dd>
            <dt>SHA-256</dt>
            <dd style={{ wordBreak: "break-all", fontFamily: "monospace", fontSize: "0.85em" }}>{f.sha256}</dd>
            <dt>Signature</dt>
            <dd>{signatureText(f.signature)}</dd>
            <dt>Uploaded</dt>
            <dd>{formatDateTime(f.createdAt)}{f.uploadedBy ? ` by ${f.uploadedBy}` : ""}</dd>
          </dl>
          <p id={meaningId} className="approve-meaning" style={{ margin: 0 }}>
            With your password you sign this firmware as{" "}
            <strong>“{APPROVAL_MEANING}”</strong>. Your name, the time and this meaning are kept in the audit trail;
            once approved it can become a default, a pin or a rollout.
          </p>
          <label htmlFor={passwordId}>Your password</label>
          <InputText
            id={passwordId}
            type="password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            autoFocus
            disabled={busy}
            autoComplete="current-password"
            invalid={refusal !== null}
            aria-invalid={refusal !== null}
            aria-describedby={refusal ? `${meaningId} ${errorId}` : meaningId}
          />
          {refusal !== null && (
            <Message
              id={errorId}
              severity="error"
              role="alert"
              className="approve-refusal"
              text={`Not approved: ${refusal}`}
            />
          )}
        </form>
      )}
    </AppDialog>
  );
}
