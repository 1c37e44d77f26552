import { type CSSProperties, type ReactNode, useId, useState } from "react";
import { Button } from "primereact/button";
import { ProgressBar } from "primereact/progressbar";
import { Message } from "primereact/message";
import type { Progress } from "../../../shared/client.ts";
import { AppDialog } from "./AppDialog.tsx";

type Phase =
  | { kind: "idle" }
  | { kind: "uploading"; percent: number }
  | { kind: "success"; detail: ReactNode }
  | { kind: "failure"; msg: string };

export interface UploadDialogProps {
  visible: boolean;
  header: string;
  /** The only extension accepted, e.g. ".xz" (SPEC §5). */
  extension: string;
  /** The file picker's label before a file is chosen, e.g. 'Select .xz file'. */
  selectLabel: string;
  /** Text shown above the file picker (the import warning). */
  warning?: ReactNode;
  actionLabel: string;
  successText: string;
  failureText: string;
  /** Sends the file; resolves to extra success details (e.g. import counts). */
  upload: (file: File, onProgress: (p: Progress) => void) => Promise<ReactNode | void>;
  onHide: () => void;
}

/**
 * Choose one file, send it with a progress bar in percent, then report success or failure with only a Close button.
 * Cancel, the close icon and Escape do nothing while the bytes go up; closing resets file and result.
 */
export function UploadDialog(props: UploadDialogProps) {
  const { visible, header, extension, selectLabel, warning, actionLabel, successText, failureText, upload, onHide } =
    props;
  const inputId = useId();
  const [file, setFile] = useState<File | null>(null);
  const [rejected, setRejected] = useState<string | null>(null);
  const [focused, setFocused] = useState(false);
  const [phase, setPhase] = useState<Phase>({ kind: "idle" });
  const uploading = phase.kind === "uploading";
  const finished = phase.kind === "success" || phase.kind === "failure";

  const close = () => {
    if (uploading) return;
    setFile(null);
    setRejected(null);
    setPhase({ kind: "idle" });
    onHide();
  };

  const choose = (chosen: File | undefined) => {
    if (!chosen) return;
    if (!chosen.name.toLowerCase().endsWith(extension)) {
      setFile(null);
      setRejected(`Only ${extension} files can be selected.`);
      return;
    }
    setRejected(null);
    setFile(chosen);
  };

  const start = async () => {
    if (!file || uploading) return;
    setPhase({ kind: "uploading", percent: 0 });
    try {
      const detail = await upload(file, ({ loaded, total }) => {
        const percent = total > 0 ? Math.min(100, Math.round((loaded / total) * 100)) : 0;
        setPhase((p) => (p.kind === "uploading" ? { kind: "uploading", percent } : p));
      });
      setPhase({ kind: "success", detail: detail ?? null });
    } catch (err) {
      setPhase({ kind: "failure", msg: err instanceof Error ? err.message : String(err) });
    }
  };

  const footer = finished ? <Button label="Close" onClick={close} autoFocus /> : (
    <div>
      <Button label="Cancel" severity="secondary" outlined onClick={close} disabled={uploading} />
      <Button label={actionLabel} onClick={start} disabled={!file || uploading} loading={uploading} />
    </div>
  );

  return (
    <AppDialog
      visible={visible}
      header={header}
      footer={footer}
      onHide={close}
      closable={!uploading}
      style={{ width: "36rem", maxWidth: "95vw" }}
    >
      <div style={{ display: "flex", flexDirection: "column", gap: "1rem" }}>
        {warning && <Message severity="warn" text={warning} />}
        {!finished && (
          <div>
            <input
              id={inputId}
              type="file"
              accept={extension}
              style={visuallyHidden}
              disabled={uploading}
              onFocus={() => setFocused(true)}
              onBlur={() => setFocused(false)}
              onChange={(e) => {
                choose(e.currentTarget.files?.[0]);
                e.currentTarget.value = "";
              }}
            />
            <label
              htmlFor={inputId}
              className={`p-button p-button-outlined${uploading ? " p-disabled" : ""}`}
              style={{ cursor: "pointer", boxShadow: focused ? "0 0 0 0.2rem var(--primary-200, #9fd8d8)" : undefined }}
            >
              <i className="pi pi-upload" style={{ marginRight: "0.5rem" }} aria-hidden="true" />
              {file ? `Selected file: ${file.name}` : selectLabel}
            </label>
            {rejected && <small style={{ display: "block", color: "var(--red-600, #c00)" }}>{rejected}</small>}
          </div>
        )}
        {phase.kind === "uploading" && (
          <div style={{ display: "flex", flexDirection: "column", gap: "0.4rem" }}>
            <ProgressBar
              value={phase.percent}
              showValue={false}
              style={{ height: "0.75rem" }}
              aria-label="Upload progress"
            />
            <span aria-live="polite">Uploading… {phase.percent}%</span>
          </div>
        )}
        {phase.kind === "success" && (
          <Message
            severity="success"
            text={
              <span>
                <strong>{successText}</strong>
                {phase.detail ? <span style={{ marginLeft: "0.5rem" }}>{phase.detail}</span> : null}
              </span>
            }
          />
        )}
        {phase.kind === "failure" && (
          <Message
            severity="error"
            text={
              <span>
                <strong>{failureText}</strong> {phase.msg}
              </span>
            }
          />
        )}
      </div>
    </AppDialog>
  );
}

/** Hidden but still focusable, so the file input stays keyboard-usable behind its label. */
const visuallyHidden: CSSProperties = {
  position: "absolute",
  width: 1,
  height: 1,
  padding: 0,
  margin: -1,
  overflow: "hidden",
  clip: "rect(0 0 0 0)",
  whiteSpace: "nowrap",
  border: 0,
};
