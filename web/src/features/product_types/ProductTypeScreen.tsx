import { useMemo, useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useLocation, useParams } from "wouter";
import { Button } from "primereact/button";
import type { Module, ModuleInput, ProductType } from "../../../../shared/schemas/product_type.ts";
import { CardGrid } from "../../components/CardGrid.tsx";
import { type PendingConfirm, PendingConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { LoadState } from "../../components/LoadState.tsx";
import { formatDateTime } from "../../lib/format.ts";
import { useNotifyError } from "../../lib/notify.ts";
import { treatmentsQuery } from "../treatments/api.ts";
import { productTypeQuery, useDeleteProductType, usePatchProductType } from "./api.ts";
import { ModuleCard } from "./ModuleCard.tsx";
import { ModuleDialog } from "./ModuleDialog.tsx";
import { renamed, withModule, withoutModule } from "./modules.ts";
import { NameDialog } from "./NameDialog.tsx";

/** Which module the dialog edits: a module, null for a new one, or closed. */
type Editing = { module: Module | null } | null;

/** /product_types/:productTypeId: rename, delete, and the module cards with their dialog. */
export default function ProductTypeScreen() {
  const { productTypeId = "" } = useParams<{ productTypeId: string }>();
  // A failed first load (e.g. an unknown id) is a route error; a failed background refetch keeps what is shown.
  const query = useQuery({
    ...productTypeQuery(productTypeId),
    throwOnError: (_err, q) => q.state.data === undefined,
  });
  const treatments = useQuery(treatmentsQuery());
  const patch = usePatchProductType();
  const remove = useDeleteProductType();
  const notifyError = useNotifyError();
  const [, navigate] = useLocation();
  const [renaming, setRenaming] = useState(false);
  const [editing, setEditing] = useState<Editing>(null);
  const [confirm, setConfirm] = useState<PendingConfirm | null>(null);
  const treatmentsById = useMemo(() => new Map((treatments.data ?? []).map((t) => [t._id, t])), [treatments.data]);

  const pt = query.data;
  if (!pt) return <LoadState fetching={query.isFetching} error={query.error} />;

  const save = (body: ReturnType<typeof renamed>, done: () => void) =>
    patch.mutate(body, { onSuccess: done, onError: notifyError });

  const askDeleteType = (p: ProductType) =>
    setConfirm({
      header: `Delete product type ${p.name}?`,
      message: "Are you sure you want to delete this product type?",
      onAccept: () =>
        remove.mutate(p._id, {
          onSuccess: () => {
            setConfirm(null);
            navigate("/product_types");
          },
          onError: (err) => {
            setConfirm(null);
            notifyError(err);
          },
        }),
    });

  const askDeleteModule = (m: Module) =>
    setConfirm({
      header: `Delete module ${m.name}?`,
      message: "Are you sure you want to delete this module?",
      onAccept: () =>
        patch.mutate(withoutModule(pt, m._id), {
          onSettled: () => setConfirm(null),
          onError: notifyError,
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
          onClick={() => setRenaming(true)}
        />
        <span style={{ flex: 1 }} />
        <Button label="Add module" icon="pi pi-plus" onClick={() => setEditing({ module: null })} />
        <Button label="Delete" icon="pi pi-trash" severity="danger" outlined onClick={() => askDeleteType(pt)} />
      </div>
      <LoadState fetching={query.isFetching || treatments.isFetching} error={query.error ?? treatments.error} />
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
                onEdit={() => setEditing({ module: m })}
                onDelete={() => askDeleteModule(m)}
              />
            ))}
          </CardGrid>
        )}

      <NameDialog
        visible={renaming}
        header="Edit product type name"
        placeholder="Enter product type name"
        initial={pt.name}
        busy={patch.isPending}
        onHide={() => setRenaming(false)}
        onSubmit={(name) => save(renamed(pt, name), () => setRenaming(false))}
      />
      <ModuleDialog
        visible={editing !== null}
        module={editing?.module ?? null}
        treatments={treatments.data}
        busy={patch.isPending}
        onHide={() => setEditing(null)}
        onSave={(module: ModuleInput) => save(withModule(pt, module), () => setEditing(null))}
      />
      <PendingConfirmDialog
        pending={confirm}
        busy={patch.isPending || remove.isPending}
        onHide={() => setConfirm(null)}
      />
    </section>
  );
}
