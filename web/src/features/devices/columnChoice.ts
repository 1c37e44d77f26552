import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useNotifyError } from "../../lib/notify.ts";
import { api } from "../../lib/api.ts";
import { preferencesQuery } from "./api.ts";
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

/** Runs `fn` once the browser is idle after the first paint (or after `maxWaitMs`); answers the cancel. */
function whenIdle(fn: () => void, maxWaitMs = 2000): () => void {
  const w = globalThis as typeof globalThis & {
    requestIdleCallback?: (fn: () => void, o?: { timeout: number }) => number;
    cancelIdleCallback?: (id: number) => void;
  };
  if (w.requestIdleCallback) {
    const id = w.requestIdleCallback(fn, { timeout: maxWaitMs });
    return () => w.cancelIdleCallback?.(id);
  }
  const timer = setTimeout(fn, 200);
  return () => clearTimeout(timer);
}

/**
 * The devices list's shown columns, per operator on the server (GET/PATCH me/preferences). The first paint uses this
 * browser's copy (no layout shift while the server answers); the server's choice, read once the browser is idle,
 * wins. A choice made in this browser before the server kept it is sent up once. The list re-renders only when the
 * columns change (the read is not a query the screen subscribes to).
 */
export function useColumnChoice(who: string | null, defaults: string[]): [string[], (ids: string[]) => void] {
  const [columns, setColumns] = useState<string[]>(() => loadColumns(who, defaults));
  const qc = useQueryClient();
  const notifyError = useNotifyError();
  useEffect(() => {
    if (who === null) return;
    let live = true;
    const cancel = whenIdle(() => {
      qc.fetchQuery({ ...preferencesQuery(), retry: false }).then((prefs) => {
        if (!live) return;
        const server = prefs.deviceColumns;
        if (server) {
          saveColumns(who, server);
          setColumns((shown) => (shown.join() === server.join() ? shown : server));
        } else {
          const local = loadColumns(who, defaults);
          if (local.join() !== defaults.join()) void api.patchPreferences({ deviceColumns: local }).catch(() => {});
        }
      }, () => {}); // offline or refused: this browser's copy stays
    });
    return () => {
      live = false;
      cancel();
    };
  }, [who]);
  const choose = (ids: string[]) => {
    setColumns(ids);
    saveColumns(who, ids);
    api.patchPreferences({ deviceColumns: ids }).then(
      (prefs) => qc.setQueryData(preferencesQuery().queryKey, prefs),
      (err) => notifyError(err),
    );
  };
  return [columns, choose];
}
