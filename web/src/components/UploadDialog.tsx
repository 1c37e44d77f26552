import { type ReactNode, useId, useRef, useState } from "react";
import { Button } from "primereact/button";
import { ProgressBar } from "primereact/progressbar";
import { Message } from "primereact/message";
import type { Progress, UploadOptions, UploadSource } from "../../../shared/client.ts";
import { focusWhenReady } from "../lib/focus.ts";
import { formatBytes } from "../../../shared/format_bytes.ts";
import { errorMessage } from "../lib/messages.ts";
import { AppDialog } from "./AppDialog.tsx";
import { visuallyHidden } from "./visuallyHidden.ts";

/** What an upload mutation takes: the file, its progress callback, and the abort signal / "all bytes sent" callback. */
export interface UploadArgs {
  file: UploadSource;
  onProgress?: (p: Progress) => void;
  opts?: UploadOptions;
}

type Phase =
  | { kind: "idle"; notice?: string }
  | { kind: "uploading"; loaded: number; total: number }
  | { kind: "processing" }
  | { kind: "success"; detail: ReactNode }
  | { kind: "failure"; msg: string };

/** Whole percent of the bytes sent; 100 only once every byte is out. */
export function percentOf(loaded: number, total: number): number {
  if (total <= 0) return 0;
  return Math.max(0, Math.min(100, Math.floor((loaded / total) * 100)));
}

export interface UploadDialogProps {
  visible: boolean;
  header: string;
  /** The extensions accepted, as the file input's `accept`: ".sqlite3", or several: ".xz,.swu" (docs/REQUIREMENTS.md, Screens). */
  extension: string;
  /** The file picker's label before a file is chosen, e.g. 'Select .xz file'. */
  selectLabel: string;
  /** Text shown above the file picker (the import warning). */
  warning?: ReactNode;
  /** More fields sent with the file (a firmware's signature), shown below the file picker; `busy` while it uploads. */
  fields?: (busy: boolean) => ReactNode;
  actionLabel: string;
  successText: string;
  failureText: string;
  /** Shown once every byte is sent while the server still works on the file. */
  processingText?: string;
  /** Sends the file; resolves to extra success details (e.g. import counts). Honours opts.signal and opts.onSent. */
  upload: (file: File, onProgress: (p: Progress) => void, opts: UploadOptions) => Promise<ReactNode | void>;
  onHide: () => void;
}

/**
 * Choose one file, send it with a progress bar in percent (bar and text show the same number of bytes sent), then
 * "Processing…" while the server works, then success or failure with only a Close button. Cancel, the close icon and
 * Escape do nothing while the upload runs; "Cancel upload" aborts the request while bytes go up (the server keeps
 * nothing of an interrupted upload). Closing resets file and result.
 */
export function UploadDialog(props: UploadDialogProps) {
  const {
    visible,
    header,
    extension,
    selectLabel,
    warning,
    fields,
    actionLabel,
    successText,
    failureText,
    upload,
    onHide,
  } = props;
  const processingText = props.processingText ?? "Processing… the server is checking the file.";
  const inputId = useId();
  const ids = { action: useId(), cancelUpload: useId(), status: useId() };
  const [file, setFile] = useState<File | null>(null);
  const [rejected, setRejected] = useState<string | null>(null);
  const [focused, setFocused] = useState(false);
  const [phase, setPhase] = useState<Phase>({ kind: "idle" });
  const controller = useRef<AbortController | null>(null);
  // Closing stays blocked from the click until the server has answered.
  const uploading = phase.kind === "uploading" || phase.kind === "processing";
  const finished = phase.kind === "success" || phase.kind === "failure";
  const byId = (id: string) => () => document.getElementById(id);

  const close = () => {
    if (uploading) return;
    setFile(null);
    setRejected(null);
    setPhase({ kind: "idle" });
    onHide();
  };

  const choose = (chosen: File | undefined) => {
    if (!chosen) return;
    const extensions = extension.split(",");
    if (!extensions.some((e) => chosen.name.toLowerCase().endsWith(e))) {
      setFile(null);
      setRejected(`Only ${extensions.join(" or ")} files can be selected.`);
      return;
    }
    setRejected(null);
    setFile(chosen);
    setPhase({ kind: "idle" });
  };

  const start = async () => {
    if (!file || uploading) return;
    const abort = new AbortController();
    controller.current = abort;
    setPhase({ kind: "uploading", loaded: 0, total: file.size });
    // The action button is disabled now: keyboard focus goes to the one thing that can be done, Cancel upload.
    focusWhenReady(byId(ids.cancelUpload));
    try {
      const detail = await upload(
        file,
        ({ loaded, total }) => setPhase((p) => (p.kind === "uploading" ? { kind: "uploading", loaded, total } : p)),
        {
          signal: abort.signal,
          onSent: () => {
            setPhase((p) => (p.kind === "uploading" ? { kind: "processing" } : p));
            focusWhenReady(byId(ids.status));
          },
        },
      );
      setPhase({ kind: "success", detail: detail ?? null });
    } catch (err) {
      if (abort.signal.aborted) {
        setPhase({ kind: "idle", notice: "Upload cancelled. Nothing was stored." });
        focusWhenReady(byId(ids.action));
      } else {
        setPhase({ kind: "failure", msg: errorMessage(err) });
      }
    } finally {
      controller.current = null;
    }
  };

  const footer = finished ? <Button label="Close" onClick={close} autoFocus /> : (
    <div>
      <Button label="Cancel" severity="secondary" outlined onClick={close} disabled={uploading} />
      <Button id={ids.action} label={actionLabel} onClick={start} disabled={!file || uploading} loading={uploading} />
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
            {rejected && <small style={{ display: "block", color: "#c81e1e" }}>{rejected}</small>}
          </div>
        )}
        {fields && !finished && fields(uploading)}
        {phase.kind === "idle" && phase.notice && <Message severity="info" text={phase.notice} />}
        {phase.kind === "uploading" && (
          <div className="upload-status">
            {/* One value drives bar and text; the bar has no width transition, so it never lags the text. */}
            <ProgressBar
              className="upload-progress"
              value={percentOf(phase.loaded, phase.total)}
              showValue={false}
              style={{ height: "0.75rem" }}
              aria-label="Upload progress"
            />
            <div className="upload-status-line">
              <span aria-live="polite">Uploading… {percentOf(phase.loaded, phase.total)}%</span>
              <span className="text-secondary">{formatBytes(phase.loaded)} of {formatBytes(phase.total)}</span>
              <span style={{ flex: 1 }} />
              <Button
                id={ids.cancelUpload}
                label="Cancel upload"
                icon="pi pi-ban"
                severity="danger"
                outlined
                size="small"
                onClick={() => controller.current?.abort()}
              />
            </div>
          </div>
        )}
        {phase.kind === "processing" && (
          <div className="upload-status" id={ids.status} tabIndex={-1}>
            <ProgressBar mode="indeterminate" style={{ height: "0.75rem" }} aria-label="Processing" />
            <span aria-live="polite">{processingText}</span>
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
