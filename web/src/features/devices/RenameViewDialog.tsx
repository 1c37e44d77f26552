import { useState } from "react";
import { MAX_VIEW_NAME, type SavedView } from "../../../../shared/schemas/saved_view.ts";
import { NameDialog } from "../../components/NameDialog.tsx";
import { nameErrorOf } from "../../lib/nameError.ts";
import { useNotify, useNotifyError } from "../../lib/notify.ts";
import { usePatchSavedView } from "./api.ts";

/**
 * Renames one of the operator's saved views (PATCH saved_views/{id} {name}). A refusal about the name (taken: 409;
 * not a valid name: 400) shows under the field; any other refusal (the view deleted meanwhile) is a toast. The menu
 * shows the new name as soon as the list is fetched again (the mutation invalidates it). Loaded only when used.
 */
export default function RenameViewDialog({ view, onHide, onRenamed }: {
  view: SavedView;
  onHide: () => void;
  onRenamed?: (view: SavedView) => void;
}) {
  const patch = usePatchSavedView();
  const notify = useNotify();
  const notifyError = useNotifyError();
  const [error, setError] = useState<string | null>(null);
  return (
    <NameDialog
      visible
      header={`Rename saved view ${view.name}`}
      placeholder="View name"
      initial={view.name}
      maxLength={MAX_VIEW_NAME}
      okLabel="Rename"
      busy={patch.isPending}
      error={error}
      onHide={onHide}
      onSubmit={(name) => {
        if (name === view.name) return onHide();
        setError(null);
        patch.mutate({ id: view._id, patch: { name } }, {
          onSuccess: (renamed) => {
            notify("View renamed", `${view.name} is now ${renamed.name}.`);
            onRenamed?.(renamed);
            onHide();
          },
          onError: (err) => {
            const text = nameErrorOf(err, (path) => path === "name");
            if (text) setError(text);
            else notifyError(err);
          },
        });
      }}
    />
  );
}
