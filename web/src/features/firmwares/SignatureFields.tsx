import { useId, useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { Dropdown } from "primereact/dropdown";
import { InputTextarea } from "primereact/inputtextarea";
import { dropdownA11y } from "../../components/dropdownA11y.ts";
import { activeKeys, ALGORITHM_LABEL, releaseKeysQuery, shortFingerprint } from "../release_keys/api.ts";
import { type SignatureChoice, signatureFromFile } from "./signatureFile.ts";
import { visuallyHidden } from "../../components/visuallyHidden.ts";

/**
 * The optional signature of a firmware upload: pasted as base64 or read from a signature file (raw bytes as openssl
 * writes them, or base64 text), and the release key that made it (or "find the key": the server tries the keys that
 * are not revoked). Sent as form fields before the file, so the server verifies it with the digest it computes.
 */
export function SignatureFields(
  { value, onChange, busy }: { value: SignatureChoice; onChange: (v: SignatureChoice) => void; busy: boolean },
) {
  const sigId = useId();
  const fileId = useId();
  const keyId = useId();
  const hintId = useId();
  const [focused, setFocused] = useState(false);
  const [fileNote, setFileNote] = useState<string | null>(null);
  const keys = useQuery(releaseKeysQuery());
  const options = [
    { label: "Find the key automatically", value: null as string | null },
    ...activeKeys(keys.data).map((k) => ({
      label: `${k.name} (${ALGORITHM_LABEL[k.algorithm]}, ${shortFingerprint(k.fingerprint)})`,
      value: k._id as string | null,
    })),
  ];

  const readFile = async (file: File | undefined) => {
    if (!file) return;
    if (file.size > 4096) {
      setFileNote(`${file.name} is too large for a signature.`);
      return;
    }
    onChange({ ...value, signature: signatureFromFile(new Uint8Array(await file.arrayBuffer())) });
    setFileNote(`Signature read from ${file.name}.`);
  };

  return (
    <fieldset className="signature-fields" style={{ border: 0, padding: 0, margin: 0 }} disabled={busy}>
      <legend style={{ marginBottom: "0.35rem", fontWeight: 600 }}>Signature (optional)</legend>
      <div style={{ display: "flex", flexDirection: "column", gap: "0.4rem" }}>
        <label htmlFor={sigId}>Signature, base64</label>
        <InputTextarea
          id={sigId}
          value={value.signature}
          onChange={(e) => {
            setFileNote(null);
            onChange({ ...value, signature: e.target.value });
          }}
          rows={2}
          spellCheck={false}
          disabled={busy}
          aria-describedby={hintId}
          style={{ fontFamily: "monospace", fontSize: "0.85em" }}
        />
        <div>
          <input
            id={fileId}
            type="file"
            accept=".sig,.b64,.txt"
            style={visuallyHidden}
            disabled={busy}
            onFocus={() => setFocused(true)}
            onBlur={() => setFocused(false)}
            onChange={(e) => {
              void readFile(e.currentTarget.files?.[0]);
              e.currentTarget.value = "";
            }}
          />
          <label
            htmlFor={fileId}
            className={`p-button p-button-outlined p-button-sm${busy ? " p-disabled" : ""}`}
            style={{ cursor: "pointer", boxShadow: focused ? "0 0 0 0.2rem var(--primary-200, #9fd8d8)" : undefined }}
          >
            <i className="pi pi-file" style={{ marginRight: "0.5rem" }} aria-hidden="true" />
            Select signature file
          </label>
          {fileNote && <small role="status" style={{ display: "block", marginTop: "0.25rem" }}>{fileNote}</small>}
        </div>
        <small id={hintId}>
          Over the file's SHA-256 digest, as the build pipeline made it. Without one the firmware is stored unsigned
          (refused when the server requires signed firmware).
        </small>
        <label htmlFor={keyId}>Release key</label>
        <Dropdown
          inputId={keyId}
          value={value.keyId}
          options={options}
          disabled={busy}
          onChange={(e) => onChange({ ...value, keyId: e.value as string | null })}
          pt={dropdownA11y("Release key")}
        />
      </div>
    </fieldset>
  );
}
