import { Button } from "primereact/button";
import { Toast, type ToastMessage as PrimeToastMessage } from "primereact/toast";
import { useEffect, useRef } from "react";
import { Link } from "wouter";
import { registerToast, type ToastMessage } from "../lib/notify.ts";

const ICONS: Record<ToastMessage["severity"], string> = {
  success: "pi pi-check",
  info: "pi pi-info-circle",
  warn: "pi pi-exclamation-triangle",
  error: "pi pi-times-circle",
};

/**
 * PrimeReact's message layout (icon, summary, detail) with one control below the text: Undo (it closes the toast,
 * then undoes) or a link (following it closes the toast).
 */
function withAction(m: ToastMessage, close: (message: PrimeToastMessage) => void): PrimeToastMessage {
  const message: PrimeToastMessage = {
    severity: m.severity,
    life: m.life,
    summary: m.summary,
    detail: m.detail,
    content: () => (
      <>
        <i className={`p-toast-message-icon ${ICONS[m.severity]}`} aria-hidden="true" style={{ fontSize: "1.5rem" }} />
        <div className="p-toast-message-text">
          <span className="p-toast-summary">{m.summary}</span>
          {m.detail && <div className="p-toast-detail">{m.detail}</div>}
          {m.undo
            ? (
              <Button
                label="Undo"
                icon="pi pi-undo"
                size="small"
                outlined
                className="toast-undo"
                onClick={() => {
                  close(message);
                  m.undo?.();
                }}
              />
            )
            : <Link href={m.link!.href} className="toast-link" onClick={() => close(message)}>{m.link!.label}</Link>}
        </div>
      </>
    ),
  };
  return message;
}

/** The app's one Toast (bottom right, clear of the page's buttons); useNotify/useNotifyError show messages through it. */
export function Notifications() {
  const ref = useRef<Toast>(null);
  useEffect(() => {
    const close = (message: PrimeToastMessage) => ref.current?.remove(message);
    registerToast((m) =>
      ref.current?.show(m.undo || m.link ? withAction(m, close) : { ...m, link: undefined } as never)
    );
    return () => registerToast(null);
  }, []);
  return <Toast ref={ref} position="bottom-right" />;
}
