import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useNotifyError } from "../../lib/notify.ts";
import { preferencesQuery, usePatchPreferences } from "./api.ts";
import { loadColumns, saveColumns } from "./savedViews.ts";

/**
 * True once the browser is idle after the first paint (or after `maxWaitMs`): work that must not compete with the
 * devices list's first load (saved views, the server's copy of the column choice) waits for it.
 */
export function useAfterIdle(maxWaitMs = 2000): boolean {
  const [idle, setIdle] = useState(false);
  useEffect(() => {
    const w = globalThis as typeof globalThis & {
      requestIdleCallback?: (fn: () => void, o?: { timeout: number }) => number;
      cancelIdleCallback?: (id: number) => void;
    };
    if (w.requestIdleCallback) {
      const id = w.requestIdleCallback(() => setIdle(true), { timeout: maxWaitMs });
      return () => w.cancelIdleCallback?.(id);
    }
    const timer = setTimeout(() => setIdle(true), 200);
    return () => clearTimeout(timer);
  }, []);
  return idle;
}

/**
 * The devices list's shown columns, per operator on the server (GET/PATCH me/preferences). The first paint uses this
 * browser's copy (no layout shift while the server answers); the server's choice, read once the browser is idle,
 * wins. A choice made in this browser before the server kept it is sent up once.
 */
export function useColumnChoice(who: string | null, defaults: string[]): [string[], (ids: string[]) => void] {
  const [columns, setColumns] = useState<string[]>(() => loadColumns(who, defaults));
  const idle = useAfterIdle();
  const prefs = useQuery({ ...preferencesQuery(), enabled: idle && who !== null });
  const patch = usePatchPreferences();
  const notifyError = useNotifyError();
  const server = prefs.data?.deviceColumns;
  useEffect(() => {
    if (!prefs.isSuccess) return;
    if (server) {
      setColumns(server);
      saveColumns(who, server);
    } else {
      const local = loadColumns(who, defaults);
      if (local.join() !== defaults.join()) patch.mutate({ deviceColumns: local });
    }
  }, [prefs.isSuccess, server?.join()]);
  const choose = (ids: string[]) => {
    setColumns(ids);
    saveColumns(who, ids);
    patch.mutate({ deviceColumns: ids }, { onError: (err) => notifyError(err) });
  };
  return [columns, choose];
}
