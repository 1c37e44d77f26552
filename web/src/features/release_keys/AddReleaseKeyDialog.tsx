import { useEffect, useId, useState } from "react";
import { Button } from "primereact/button";
import { InputText } from "primereact/inputtext";
import { InputTextarea } from "primereact/inputtextarea";
import { Message } from "primereact/message";
import { MAX_PUBLIC_KEY_PEM, MAX_RELEASE_KEY_NAME } from "../../../../shared/schemas/release_key.ts";
import { AppDialog } from "../../components/AppDialog.tsx";
import { focusWhenReady } from "../../lib/focus.ts";
import { errorMessage, useNotify } from "../../lib/notify.ts";
import { useCreateReleaseKey } from "./api.ts";

const PEM_PLACEHOLDER = "-----BEGIN PUBLIC KEY-----\n…\n-----END PUBLIC KEY-----";

/**
 * Registers a release key: a name and the public key pasted as PEM. The server decides whether it is an Ed25519 or
 * ECDSA P-256 key; its refusal (not a key, another curve, registered already) stays in the dialog with what was pasted.
 */
export function AddReleaseKeyDialog({ visible, onHide }: { visible: boolean; onHide: () => void }) {
  const nameId = useId();
  const pemId = useId();
  const hintId = useId();
  const errorId = useId();
  const [name, setName] = useState("");
  const [pem, setPem] = useState("");
  const [refusal, setRefusal] = useState<string | null>(null);
  const create = useCreateReleaseKey();
  const notify = useNotify();

  useEffect(() => {
    if (!visible) return;
    setName("");
    setPem("");
    setRefusal(null);
  }, [visible]);

  const canAdd = name.trim().length > 0 && pem.trim().length > 0 && !create.isPending;
  const submit = () => {
    if (!canAdd) return;
    setRefusal(null);
    create.mutate({ name: name.trim(), publicKey: pem.trim() + "\n" }, {
      onSuccess: (k) => {
        notify("Release key added", `${k.name} verifies signed uploads from now on.`);
        onHide();
      },
      onError: (err) => {
        setRefusal(errorMessage(err));
        focusWhenReady(() => document.getElementById(errorId));
      },
    });
  };

  return (
    <AppDialog
      visible={visible}
      header="Add release key"
      onHide={onHide}
      style={{ width: "38rem", maxWidth: "95vw" }}
      footer={
        <div>
          <Button label="Cancel" icon="pi pi-times" outlined onClick={onHide} disabled={create.isPending} />
          <Button label="Add key" icon="pi pi-check" disabled={!canAdd} loading={create.isPending} onClick={submit} />
        </div>
      }
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
        style={{ display: "flex", flexDirection: "column", gap: "0.5rem" }}
      >
        <label htmlFor={nameId}>Name</label>
        <InputText
          id={nameId}
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder="Which pipeline signs with it, e.g. release-ci 2026"
          maxLength={MAX_RELEASE_KEY_NAME}
          autoFocus
        />
        <label htmlFor={pemId}>Public key (PEM)</label>
        <InputTextarea
          id={pemId}
          value={pem}
          onChange={(e) => setPem(e.target.value)}
          rows={6}
          maxLength={MAX_PUBLIC_KEY_PEM}
          spellCheck={false}
          placeholder={PEM_PLACEHOLDER}
          style={{ fontFamily: "monospace", fontSize: "0.85em" }}
          aria-describedby={refusal ? `${hintId} ${errorId}` : hintId}
          aria-invalid={refusal !== null}
        />
        <small id={hintId}>
          Ed25519 or ECDSA P-256, as <code>openssl pkey -in private.pem -pubout</code>{" "}
          prints it. Only the public key: the private key stays in the build pipeline.
        </small>
        {refusal !== null && (
          <Message
            id={errorId}
            tabIndex={-1}
            severity="error"
            role="alert"
            className="release-key-refusal"
            text={`Not added: ${refusal}`}
          />
        )}
      </form>
    </AppDialog>
  );
}
