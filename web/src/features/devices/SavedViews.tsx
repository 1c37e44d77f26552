import { InputText } from "primereact/inputtext";
import { useState } from "react";
import { LiteButton } from "../../components/LiteButton.tsx";
import { FilterSelect } from "./FilterSelect.tsx";
import { loadViews, type SavedView, saveViews } from "./savedViews.ts";

/** Saved views of this operator: open one, save the current one, delete one. */
export function SavedViews(
  { who, current, onOpen }: { who: string | null; current: string; onOpen: (q: string) => void },
) {
  const [views, setViews] = useState<SavedView[]>(() => loadViews(who));
  const [name, setName] = useState("");
  const [naming, setNaming] = useState(false);
  const store = (next: SavedView[]) => {
    setViews(next);
    saveViews(who, next);
  };
  return (
    <div className="saved-views">
      <FilterSelect
        id="saved-view"
        label="Saved view"
        value={views.find((v) => v.query === current)?.name ?? ""}
        onChange={(n) => {
          const view = views.find((v) => v.name === n);
          if (view) onOpen(view.query);
        }}
      >
        <option value="">—</option>
        {views.map((v) => <option key={v.name} value={v.name}>{v.name}</option>)}
      </FilterSelect>
      {naming
        ? (
          <form
            className="save-view-form"
            onSubmit={(e) => {
              e.preventDefault();
              const trimmed = name.trim();
              if (!trimmed) return;
              store([...views.filter((v) => v.name !== trimmed), { name: trimmed, query: current }]);
              setName("");
              setNaming(false);
            }}
          >
            <label htmlFor="view-name" className="visually-hidden">View name</label>
            <InputText
              id="view-name"
              value={name}
              maxLength={60}
              placeholder="View name"
              onChange={(e) => setName(e.target.value)}
              autoFocus
            />
            <LiteButton type="submit" label="Save" size="small" disabled={!name.trim()} />
            <LiteButton type="button" label="Cancel" size="small" text onClick={() => setNaming(false)} />
          </form>
        )
        : <LiteButton label="Save view" icon="pi pi-bookmark" size="small" text onClick={() => setNaming(true)} />}
      {views.some((v) => v.query === current) && (
        <LiteButton
          label="Delete view"
          icon="pi pi-trash"
          size="small"
          text
          severity="secondary"
          onClick={() => store(views.filter((v) => v.query !== current))}
        />
      )}
    </div>
  );
}
