import { useId, useMemo, useRef } from "react";
import { Dropdown } from "primereact/dropdown";
import { dropdownA11y } from "./dropdownA11y.ts";

/** Lists longer than this render only the options in view (thousands of imported treatments open at once). */
const VIRTUAL_FROM = 50;
const OPTION_HEIGHT = 42;

/** The fields the picker needs of a treatment (a full Treatment fits). */
export interface PickableTreatment {
  _id: string;
  name: string;
  category: string | null;
  /** Highest channel count over its phases. */
  channels: number;
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
  // The option's name for assistive technology is what it shows: the name, then channels and category.
  const options = useMemo(
    () =>
      pickableTreatments(treatments, excludeIds).map((t) => ({
        treatment: t,
        name: t.name,
        meta: `${t.channels} ch${t.category ? ` · ${t.category}` : ""}`,
        label: `${t.name} ${t.channels} ch${t.category ? ` · ${t.category}` : ""}`,
        _id: t._id,
      })),
    [treatments, excludeIds],
  );
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
      <label htmlFor={id} className="visually-hidden">Add treatment</label>
      <Dropdown
        inputId={id}
        value={null}
        options={options}
        optionLabel="label"
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
        style={{ width: "30em", maxWidth: "100%" }}
        panelStyle={{ maxWidth: "calc(100vw - 1rem)" }}
        pt={dropdownA11y("Add treatment")}
        virtualScrollerOptions={options.length > VIRTUAL_FROM ? { itemSize: OPTION_HEIGHT } : undefined}
        itemTemplate={(o: (typeof options)[number]) => (
          <div className="picker-option">
            <span className="picker-option-name" title={o.name}>{o.name}</span>{" "}
            <span className="picker-option-meta">{o.meta}</span>
          </div>
        )}
        onChange={(e) => {
          const picked = e.value as (typeof options)[number] | null;
          if (picked) onPick(picked.treatment);
        }}
      />
    </div>
  );
}
