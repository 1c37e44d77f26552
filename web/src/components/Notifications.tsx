import { Toast } from "primereact/toast";
import { useEffect, useRef } from "react";
import { registerToast } from "../lib/notify.ts";

/** The app's one Toast; useNotify/useNotifyError show messages through it. */
export function Notifications() {
  const ref = useRef<Toast>(null);
  useEffect(() => {
    registerToast((m) => ref.current?.show(m));
    return () => registerToast(null);
  }, []);
  return <Toast ref={ref} position="top-right" />;
}
