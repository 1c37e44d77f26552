import { useQuery, useQueryClient } from "@tanstack/react-query";
import { InputText } from "primereact/inputtext";
import { lazy, Suspense, useEffect, useRef, useState } from "react";
import type { SavedView } from "../../../../shared/schemas/saved_view.ts";
import { type PendingConfirm, PendingConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { LiteButton } from "../../components/LiteButton.tsx";
import { focusWhenReady } from "../../lib/focus.ts";
import { useNotify, useNotifyError } from "../../lib/notify.ts";
import { useRole } from "../../lib/role.ts";
import {
  savedViewKeys,
  savedViewsApi,
  savedViewsQuery,
  useCreateSavedView,
  useDeleteSavedView,
  usePatchSavedView,
} from "./api.ts";
import { keepLocalViews, loadLocalViews, localViewQuery, viewLabel, viewQueryOf, viewUrlQuery } from "./savedViews.ts";
import { readDevicesUrl } from "./urlState.ts";

/** In place of the rename dialog when its code could not be fetched (offline): says so and closes. */
function RenameNotLoaded({ error, onHide }: { error: unknown; onHide: () => void }) {
  const notifyError = useNotifyError();
  useEffect(() => {
    notifyError(error);
    onHide();
  }, []);
  return null;
}

// The rename dialog's code is fetched when the operator first asks to rename: using the menu does not need it.
const RenameViewDialog = lazy(() =>
  import("./RenameViewDialog.tsx").catch((error) => ({
    default: ({ onHide }: { onHide: () => void }) => <RenameNotLoaded error={error} onHide={onHide} />,
  }))
);

const nameKey = (name: string) => name.trim().normalize("NFC").toLowerCase();
const importing = new Set<string>();

/**
 * Moves the views this browser kept (before views lived on the server) to the operator's account, once: each is saved
 * unless the operator already has a view of that name; those the server refused stay in this browser for a later try.
 * Answers how many moved and the first refusal.
 */
async function importLocalViews(who: string, mine: SavedView[]): Promise<{ moved: number; error: unknown }> {
  const local = loadLocalViews(who);
  if (!local.length || importing.has(who)) return { moved: 0, error: null };
  importing.add(who);
  try {
    const taken = new Set(mine.map((v) => nameKey(v.name)));
    const kept: typeof local = [];
    let moved = 0;
    let error: unknown = null;
    for (const view of local) {
      if (taken.has(nameKey(view.name))) continue;
      try {
        await savedViewsApi.create({ name: view.name, query: localViewQuery(view) });
        taken.add(nameKey(view.name));
        moved++;
      } catch (err) {
        kept.push(view);
        error ??= err;
      }
    }
    keepLocalViews(who, kept);
    return { moved, error };
  } finally {
    importing.delete(who);
  }
}

/**
 * Saved views of the devices list, kept on the server per operator: open one (own or shared by another operator),
 * save the current one (optionally shared), share, unshare or rename one's own, delete one behind a confirmation (admins may
 * delete a view someone shared). Rendered by SavedViewsSlot once the browser is idle after the list's first load.
 */
export default function SavedViews({ who, current, onOpen }: {
  who: string | null;
  /** The list's URL query for its current filters and sort (first page, default size). */
  current: string;
  onOpen: (query: string) => void;
}) {
  const views = useQuery({ ...savedViewsQuery(), enabled: who !== null });
  const qc = useQueryClient();
  const create = useCreateSavedView();
  const patch = usePatchSavedView();
  const remove = useDeleteSavedView();
  const notify = useNotify();
  const notifyError = useNotifyError();
  const { isAdmin } = useRole();
  const [name, setName] = useState("");
  const [shared, setShared] = useState(false);
  const [naming, setNaming] = useState(false);
  const [confirm, setConfirm] = useState<PendingConfirm | null>(null);
  // The confirmation is mounted from its first question on: a hidden PrimeReact Dialog still adds its <style> to the
  // page when it mounts, one more restyle of the whole devices page while it loads.
  const asked = useRef(false);
  if (confirm) asked.current = true;
  const [renaming, setRenaming] = useState<SavedView | null>(null);

  const list = views.data ?? [];
  const mine = list.filter((v) => v.owner === who);
  // The view shown: the one last picked or saved here while the list still shows it, else one's own that shows the
  // same, else a shared one (several views may show the same devices).
  const [picked, setPicked] = useState<string | null>(null);
  const showing = (v: SavedView) => viewUrlQuery(v.query) === current;
  const open = list.find((v) => v._id === picked && showing(v)) ??
    list.find((v) => showing(v) && v.owner === who) ?? list.find(showing);
  const own = open?.owner === who;

  useEffect(() => {
    if (!views.isSuccess || !who) return;
    void importLocalViews(who, mine).then(({ moved, error }) => {
      if (moved) {
        notify("Saved views moved", `${moved} view${moved === 1 ? "" : "s"} saved in this browser now follow you.`);
        void qc.invalidateQueries({ queryKey: savedViewKeys.list() });
      }
      if (error) notifyError(error);
    });
  }, [views.isSuccess, who]);

  const done = () => {
    setName("");
    setShared(false);
    setNaming(false);
  };

  /** Saves the current filters and sort under `name`; a name of one's own asks first, then replaces that view's. */
  const save = () => {
    const trimmed = name.trim();
    if (!trimmed) return;
    const query = viewQueryOf(readDevicesUrl(new URLSearchParams(current)));
    const same = mine.find((v) => nameKey(v.name) === nameKey(trimmed));
    if (same) {
      setConfirm({
        header: `Replace saved view ${same.name}?`,
        message: `${same.name} will show the current filters and sort instead of its own.` +
          (same.shared ? " Every operator it is shared with sees the change." : ""),
        onAccept: () =>
          patch.mutateAsync({ id: same._id, patch: { query, ...(shared ? { shared } : {}) } }).then((v) => {
            setPicked(v._id);
            notify("View replaced", v.name);
            done();
          }, notifyError).finally(() => setConfirm(null)),
      });
      return;
    }
    create.mutate({ name: trimmed, query, shared }, {
      onSuccess: (v) => {
        setPicked(v._id);
        notify("View saved", v.shared ? `${v.name} (shared with every operator)` : v.name);
        done();
      },
      onError: (err) => notifyError(err),
    });
  };

  const askDelete = (v: SavedView) =>
    setConfirm({
      header: `Delete saved view ${v.name}?`,
      message: v.owner === who
        ? v.shared
          ? "The view is gone for you and for every operator it was shared with."
          : "The view is gone; the devices stay as they are."
        : `This view belongs to ${v.owner} and is shared with every operator: it is gone for all of them.`,
      destructive: true,
      onAccept: () =>
        remove.mutateAsync(v._id).then(() => notify("View deleted", v.name), notifyError).finally(() =>
          setConfirm(null)
        ),
    });

  return (
    <div className="saved-views">
      <div className="filter-field">
        <label htmlFor="saved-view">Saved view</label>
        <select
          id="saved-view"
          className="p-inputtext p-component"
          value={open?._id ?? ""}
          aria-busy={views.isFetching}
          onChange={(e) => {
            const view = list.find((v) => v._id === e.target.value);
            if (!view) return;
            setPicked(view._id);
            onOpen(viewUrlQuery(view.query));
          }}
        >
          <option value="">{views.isError ? "— (not loaded)" : "—"}</option>
          {list.map((v) => <option key={v._id} value={v._id}>{viewLabel(v, who)}</option>)}
        </select>
      </div>
      {open && !own && <span className="saved-view-owner">Shared by {open.owner}</span>}
      {naming
        ? (
          <form
            className="save-view-form"
            onSubmit={(e) => {
              e.preventDefault();
              save();
            }}
          >
            <label htmlFor="view-name" className="visually-hidden">View name</label>
            <InputText
              id="view-name"
              value={name}
              maxLength={100}
              placeholder="View name"
              onChange={(e) => setName(e.target.value)}
              autoFocus
            />
            <label className="save-view-shared">
              <input type="checkbox" checked={shared} onChange={(e) => setShared(e.target.checked)} /> Shared
            </label>
            <LiteButton type="submit" label="Save" size="small" loading={create.isPending} disabled={!name.trim()} />
            <LiteButton type="button" label="Cancel" size="small" text onClick={() => setNaming(false)} />
          </form>
        )
        : (
          <LiteButton
            label="Save view"
            icon="pi pi-bookmark"
            size="small"
            text
            onClick={() => setNaming(true)}
          />
        )}
      {open && own && (
        <LiteButton
          label={open.shared ? "Unshare view" : "Share view"}
          icon={open.shared ? "pi pi-lock" : "pi pi-users"}
          size="small"
          text
          severity="secondary"
          loading={patch.isPending}
          onClick={() =>
            patch.mutate({ id: open._id, patch: { shared: !open.shared } }, {
              onSuccess: (v) => notify(v.shared ? "View shared" : "View unshared", v.name),
              onError: (err) => notifyError(err),
            })}
        />
      )}
      {open && own && (
        <LiteButton
          id="rename-view"
          label="Rename view…"
          icon="pi pi-pencil"
          size="small"
          text
          severity="secondary"
          aria-haspopup="dialog"
          onClick={() => setRenaming(open)}
        />
      )}
      {open && (own || (isAdmin && open.shared)) && (
        <LiteButton
          label="Delete view"
          icon="pi pi-trash"
          size="small"
          text
          severity="secondary"
          onClick={() => askDelete(open)}
        />
      )}
      {renaming && (
        <Suspense fallback={null}>
          <RenameViewDialog
            view={renaming}
            onRenamed={(v) => setPicked(v._id)}
            onHide={() => {
              setRenaming(null);
              // Back to the button that opened it (the dialog is gone with its focused field).
              focusWhenReady(() => document.getElementById("rename-view"));
            }}
          />
        </Suspense>
      )}
      {asked.current && (
        <PendingConfirmDialog
          pending={confirm}
          busy={remove.isPending || patch.isPending}
          onHide={() => setConfirm(null)}
        />
      )}
    </div>
  );
}
