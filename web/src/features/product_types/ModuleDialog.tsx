import { type ReactNode, useEffect, useId, useMemo, useState } from "react";
import { Button } from "primereact/button";
import { Checkbox } from "primereact/checkbox";
import { InputText } from "primereact/inputtext";
import type { Module, ModuleInput } from "../../../../shared/schemas/product_type.ts";
import type { TreatmentSummary } from "../../../../shared/schemas/treatment.ts";
import { AppDialog } from "../../components/AppDialog.tsx";
import { useFieldError } from "../../lib/useFieldError.ts";
import { TreatmentPicker } from "../../components/TreatmentPicker.tsx";
import { sortIdsByName } from "./modules.ts";

export interface ModuleDialogProps {
  visible: boolean;
  /** The module to edit; null adds a new one. */
  module: Module | null;
  treatments: readonly TreatmentSummary[] | undefined;
  busy?: boolean;
  /** Why the server refused the module's name, shown under the field until the name changes. */
  nameError?: string | null;
  /** Shown above the fields (e.g. that someone else changed the product type meanwhile: ConflictNotice). */
  notice?: ReactNode;
  onSave: (module: ModuleInput) => void;
  onHide: () => void;
}

/** 'Edit module': name, default flag and the treatment list (kept sorted by name, no duplicates). */
export function ModuleDialog(
  { visible, module, treatments, busy, nameError, notice, onSave, onHide }: ModuleDialogProps,
) {
  const nameId = useId();
  const nameErrorId = useId();
  const defaultId = useId();
  const [name, setName] = useState("");
  const [isDefault, setIsDefault] = useState(false);
  const [treatmentIds, setTreatmentIds] = useState<string[]>([]);
  const byId = useMemo(() => new Map((treatments ?? []).map((t) => [t._id, t])), [treatments]);
  const nameOf = (id: string) => byId.get(id)?.name;

  useEffect(() => {
    if (!visible) return;
    setName(module?.name ?? "");
    setIsDefault(module?.isDefault ?? false);
    setTreatmentIds(module?.treatmentIds ?? []);
  }, [visible, module]);

  const shownError = useFieldError(nameError, name, nameId);

  const sortedIds = sortIdsByName(treatmentIds, nameOf);
  const trimmed = name.trim();
  const canSave = trimmed.length > 0 && !busy;
  const save = () => {
    if (canSave) onSave({ ...(module ? { _id: module._id } : {}), name: trimmed, isDefault, treatmentIds: sortedIds });
  };

  return (
    <AppDialog
      visible={visible}
      header="Edit module"
      onHide={onHide}
      style={{ width: "40rem", maxWidth: "95vw" }}
      footer={
        <div>
          <Button label="Cancel" icon="pi pi-times" outlined onClick={onHide} />
          <Button label="Save" icon="pi pi-check" disabled={!canSave} loading={busy} onClick={save} />
        </div>
      }
    >
      <div style={{ display: "flex", flexDirection: "column", gap: "1rem" }}>
        {notice}
        <form
          onSubmit={(e) => {
            e.preventDefault();
            save();
          }}
          style={{ display: "flex", flexDirection: "column", gap: "0.5rem" }}
        >
          <label htmlFor={nameId}>Name</label>
          <InputText
            id={nameId}
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder="Enter module name"
            maxLength={200}
            autoFocus
            invalid={!!shownError}
            aria-invalid={!!shownError}
            aria-describedby={shownError ? nameErrorId : undefined}
          />
          {shownError && <small id={nameErrorId} className="field-error">{shownError}</small>}
        </form>
        <div style={{ display: "flex", alignItems: "center", gap: "0.5rem" }}>
          <Checkbox inputId={defaultId} checked={isDefault} onChange={(e) => setIsDefault(!!e.checked)} />
          <label htmlFor={defaultId}>Include as default on product type.</label>
        </div>
        <div>
          <h3 style={{ margin: "0 0 0.5rem" }}>Treatments</h3>
          {sortedIds.length === 0
            ? <p style={{ margin: 0 }}>No treatments present</p>
            : (
              <ul aria-label="Module treatments" style={{ listStyle: "none", margin: 0, padding: 0 }}>
                {sortedIds.map((id) => {
                  const t = byId.get(id);
                  const label = t?.name ?? id;
                  return (
                    <li
                      key={id}
                      style={{ display: "flex", alignItems: "center", gap: "0.75rem", padding: "0.15rem 0" }}
                    >
                      <Button
                        type="button"
                        icon="pi pi-times"
                        rounded
                        text
                        severity="danger"
                        aria-label={`Remove ${label}`}
                        onClick={() => setTreatmentIds((ids) => ids.filter((x) => x !== id))}
                      />
                      <span className="module-treatment-name" style={{ flex: 1 }}>{label}</span>
                      {t && <span>{t.channels} ch</span>}
                      {t && <span style={{ minWidth: "8rem" }}>{t.category ?? "-"}</span>}
                    </li>
                  );
                })}
              </ul>
            )}
        </div>
        <TreatmentPicker
          treatments={treatments}
          excludeIds={treatmentIds}
          onPick={(t) => setTreatmentIds((ids) => (ids.includes(t._id) ? ids : [...ids, t._id]))}
        />
      </div>
    </AppDialog>
  );
}
