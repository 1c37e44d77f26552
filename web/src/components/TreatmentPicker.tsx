import { useId, useMemo, useRef } from "react";
import { Dropdown } from "primereact/dropdown";
import { maxChannels } from "../../../shared/schemas/treatment.ts";

/** The fields the picker needs of a treatment (a full Treatment fits). */
export interface PickableTreatment {
  _id: string;
  name: string;
  category: string | null;
  phases: readonly { channels: readonly unknown[] }[];
}

export interface TreatmentPickerProps<T extends PickableTreatment> {
  treatments: readonly T[] | undefined;
  /** Treatments already present: never offered again. */
  excludeIds: readonly string[];
  onPick: (treatment: T) => void;
  autoFocus?: boolean;
  disabled?: boolean;
}

/** Treatments not yet present, sorted by name. */
export function pickableTreatments<T extends PickableTreatment>(
  treatments: readonly T[] | undefined,
  excludeIds: readonly string[],
): T[] {
  const exclude = new Set(excludeIds);
  return (treatments ?? []).filter((t) => !exclude.has(t._id)).sort((a, b) => a.name.localeCompare(b.name));
}

/** Searchable picker labelled 'Add treatment' (width 30em); picking calls onPick and clears itself. */
export function TreatmentPicker<T extends PickableTreatment>(
  { treatments, excludeIds, onPick, autoFocus, disabled }: TreatmentPickerProps<T>,
) {
  const id = useId();
  const options = useMemo(() => pickableTreatments(treatments, excludeIds), [treatments, excludeIds]);
  const root = useRef<HTMLDivElement>(null);
  return (
    // Escape in the open list only closes the list: PrimeReact's dialog listens on document and would close too.
    <div
      ref={root}
      onKeyDown={(e) => {
        const inPanel = (e.target as HTMLElement).closest?.(".p-dropdown-panel");
        if (e.key === "Escape" && (inPanel || root.current?.querySelector("[aria-expanded='true']"))) {
          e.stopPropagation();
        }
      }}
    >
      <Dropdown
        inputId={id}
        value={null}
        options={options}
        optionLabel="name"
        dataKey="_id"
        filter
        filterBy="name"
        filterInputAutoFocus
        resetFilterOnHide
        placeholder="Add treatment"
        ariaLabel="Add treatment"
        emptyMessage="No treatments left to add"
        emptyFilterMessage="No treatment matches"
        disabled={disabled}
        autoFocus={autoFocus}
        style={{ width: "30em" }}
        itemTemplate={(t: T) => (
          <div style={{ display: "flex", gap: "0.75rem", justifyContent: "space-between", width: "100%" }}>
            <span>{t.name}</span>
            <span style={{ color: "var(--text-color-secondary)" }}>
              {maxChannels(t.phases)} ch{t.category ? ` · ${t.category}` : ""}
            </span>
          </div>
        )}
        onChange={(e) => {
          const picked = e.value as T | null;
          if (picked) onPick(picked);
        }}
      />
    </div>
  );
}
