import { useMemo, useState } from "react";
import { AuditHistory } from "../audit/api.ts";
import { useQuery } from "@tanstack/react-query";
import { useLocation, useParams } from "wouter";
import { Button } from "primereact/button";
import { isPreconditionFailed } from "../../../../shared/client.ts";
import type { Module, ModuleInput, ProductType } from "../../../../shared/schemas/product_type.ts";
import { CardGrid } from "../../components/CardGrid.tsx";
import { ConflictNotice } from "../../components/ConflictNotice.tsx";
import { type PendingConfirm, PendingConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { LoadState } from "../../components/LoadState.tsx";
import { focusPageHeading, focusWhenReady } from "../../lib/focus.ts";
import { formatDateTime } from "../../lib/format.ts";
import { useRole } from "../../lib/role.ts";
import { changedElsewhere, useNotify, useNotifyConflict, useNotifyError } from "../../lib/notify.ts";
import { treatmentSummariesQuery } from "../treatments/api.ts";
import { productTypeQuery, useDeleteProductType, usePatchProductType, useReloadProductType } from "./api.ts";
import { ModuleCard } from "./ModuleCard.tsx";
import { DeletionImpact } from "./DeletionImpact.tsx";
import { ModuleDialog } from "./ModuleDialog.tsx";
import { renamed, withModule, withoutModule } from "./modules.ts";
import { NameDialog } from "../../components/NameDialog.tsx";
import { nameErrorOf } from "../../lib/nameError.ts";

/** Which module the dialog edits: a module, null for a new one, or closed. */
type Editing = { module: Module | null } | null;

/** /product_types/:productTypeId: rename, delete, and the module cards with their dialog. */
export default function ProductTypeScreen() {
  const { productTypeId = "" } = useParams<{ productTypeId: string }>();
  const { canWrite } = useRole();
  // A failed first load (e.g. an unknown id) is a route error; a failed background refetch keeps what is shown.
  const query = useQuery({
    ...productTypeQuery(productTypeId),
    throwOnError: (_err, q) => q.state.data === undefined,
  });
  const treatments = useQuery(treatmentSummariesQuery());
  const patch = usePatchProductType();
  const remove = useDeleteProductType();
  const notify = useNotify();
  const notifyError = useNotifyError();
  const notifyConflict = useNotifyConflict();
  const reload = useReloadProductType(productTypeId);
  const [, navigate] = useLocation();
  const [renaming, setRenaming] = useState(false);
  const [renameError, setRenameError] = useState<string | null>(null);
  const [editing, setEditing] = useState<Editing>(null);
  const [moduleNameError, setModuleNameError] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<PendingConfirm | null>(null);
  /** The dialog whose change met a newer version (412): it stays open with the operator's values and says so. */
  const [conflictIn, setConflictIn] = useState<"rename" | "module" | null>(null);
  const treatmentsById = useMemo(() => new Map((treatments.data ?? []).map((t) => [t._id, t])), [treatments.data]);

  const pt = query.data;
  if (!pt) return <LoadState fetching={query.isFetching} error={query.error} />;

  /**
   * A change refused because someone else changed the type since it was loaded: nothing was saved. The current version
   * is loaded and shown. The name or module dialog stays open with what the operator entered and says so (saving again
   * applies it to the current version); a confirmation closes and a toast asks to apply the change again.
   */
  const conflict = async (keep?: "rename" | "module") => {
    if (keep) {
      await reload();
      setConflictIn(keep);
      return;
    }
    setRenaming(false);
    setRenameError(null);
    setEditing(null);
    setModuleNameError(null);
    setConfirm(null);
    await reload();
    notifyConflict(changedElsewhere("product type"));
  };
  const failed = (err: Error) => isPreconditionFailed(err) ? void conflict() : notifyError(err);

  /**
   * Saves the whole product type on the version shown; a refused name shows beside its field (onNameError), anything
   * else in a toast.
   */
  const save = (
    body: ReturnType<typeof renamed>,
    done: () => void,
    onNameError: (text: string) => void,
    isNameField: (path: string) => boolean,
    dialog: "rename" | "module",
  ) => {
    setConflictIn(null);
    patch.mutate({ body, ifMatch: pt.etag }, {
      onSuccess: done,
      onError: (err) => {
        const nameError = nameErrorOf(err, isNameField);
        if (nameError) onNameError(nameError);
        else if (isPreconditionFailed(err)) void conflict(dialog);
        else notifyError(err);
      },
    });
  };

  const askDeleteType = (p: ProductType) =>
    setConfirm({
      header: `Delete product type ${p.name}?`,
      message: "Are you sure you want to delete this product type?",
      details: <DeletionImpact loss={{ kind: "productType", id: p._id }} what="this product type" />,
      destructive: true,
      acceptLabel: "Delete product type",
      cancelLabel: "Keep product type",
      onAccept: () =>
        remove.mutate({ body: p._id, ifMatch: p.etag }, {
          onSuccess: () => {
            setConfirm(null);
            notify("Product type deleted", `${p.name} deleted.`);
            navigate("/product_types");
            focusPageHeading();
          },
          onError: (err) => {
            setConfirm(null);
            failed(err);
          },
        }),
    });

  const askDeleteModule = (m: Module) =>
    setConfirm({
      header: `Delete module ${m.name}?`,
      message: "Are you sure you want to delete this module?",
      // Default modules apply to every device of the type without being stored on the device.
      details: m.isDefault
        ? <DeletionImpact loss={{ kind: "productType", id: pt._id }} what="this default module" />
        : <DeletionImpact loss={{ kind: "module", id: m._id }} what="this module enabled" />,
      destructive: true,
      acceptLabel: "Delete module",
      cancelLabel: "Keep module",
      onAccept: () =>
        patch.mutate({ body: withoutModule(pt, m._id), ifMatch: pt.etag }, {
          onSettled: () => setConfirm(null),
          onSuccess: () => {
            notify("Module deleted", `${m.name} deleted from ${pt.name}.`);
            // The module's card is gone: focus goes to the button that adds one.
            focusWhenReady(() => document.getElementById("add-module"));
          },
          onError: failed,
        }),
    });

  return (
    <section style={{ display: "flex", flexDirection: "column", gap: "1rem" }}>
      <div style={{ display: "flex", alignItems: "center", gap: "0.75rem", flexWrap: "wrap" }}>
        <h1 style={{ margin: 0 }}>Product type: {pt.name}</h1>
        <Button
          icon="pi pi-pencil"
          rounded
          text
          aria-label="Edit product type name"
          tooltip="Edit product type name"
          disabled={!canWrite}
          onClick={() => setRenaming(true)}
        />
        <span style={{ flex: 1 }} />
        <Button
          id="add-module"
          label="Add module"
          icon="pi pi-plus"
          disabled={!canWrite}
          onClick={() => setEditing({ module: null })}
        />
        <Button
          label="Delete"
          icon="pi pi-trash"
          severity="danger"
          outlined
          disabled={!canWrite}
          onClick={() => askDeleteType(pt)}
        />
      </div>
      <LoadState
        fetching={query.isFetching || treatments.isFetching}
        error={query.error ?? treatments.error}
        onRetry={() => {
          if (query.isError) void query.refetch();
          if (treatments.isError) void treatments.refetch();
        }}
      />
      <div style={{ color: "var(--text-color-secondary)" }}>
        Created at: {formatDateTime(pt.createdAt)} · Updated at: {formatDateTime(pt.updatedAt)}
      </div>
      {pt.modules.length === 0
        ? <p>No modules present. Add one by clicking on the 'Add Module' button above.</p>
        : (
          <CardGrid>
            {pt.modules.map((m) => (
              <ModuleCard
                key={m._id}
                module={m}
                treatmentsById={treatmentsById}
                loading={treatments.isPending}
                readOnly={!canWrite}
                onEdit={() => setEditing({ module: m })}
                onDelete={() => askDeleteModule(m)}
              />
            ))}
          </CardGrid>
        )}
      <AuditHistory targetType="product_type" targetId={pt._id} />

      <NameDialog
        visible={renaming}
        header="Edit product type name"
        placeholder="Enter product type name"
        initial={pt.name}
        busy={patch.isPending}
        error={renameError}
        notice={conflictIn === "rename" &&
          <ConflictNotice item="product type" current={`its name is ${pt.name}`} action="OK" />}
        onHide={() => {
          setRenaming(false);
          setRenameError(null);
          setConflictIn(null);
        }}
        onSubmit={(name) => {
          setRenameError(null);
          save(
            renamed(pt, name),
            () => {
              setRenaming(false);
              notify("Product type renamed", `${pt.name} is now ${name}.`);
            },
            setRenameError,
            (path) => path === "name",
            "rename",
          );
        }}
      />
      <ModuleDialog
        visible={editing !== null}
        module={editing?.module ?? null}
        treatments={treatments.data}
        busy={patch.isPending}
        nameError={moduleNameError}
        notice={conflictIn === "module" && (
          <ConflictNotice
            item="product type"
            current={`its modules are ${pt.modules.map((m) => m.name).join(", ") || "none"}`}
            action="Save"
          />
        )}
        onHide={() => {
          setEditing(null);
          setModuleNameError(null);
          setConflictIn(null);
        }}
        onSave={(module: ModuleInput) => {
          setModuleNameError(null);
          save(
            withModule(pt, module),
            () => {
              setEditing(null);
              notify("Module saved", `${module.name} saved in ${pt.name}.`);
            },
            setModuleNameError,
            (path) => /^modules\.\d+\.name$/.test(path),
            "module",
          );
        }}
      />
      <PendingConfirmDialog
        pending={confirm}
        busy={patch.isPending || remove.isPending}
        onHide={() => setConfirm(null)}
      />
    </section>
  );
}
