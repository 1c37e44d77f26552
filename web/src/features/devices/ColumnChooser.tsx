import { useState } from "react";
import { LiteButton } from "../../components/LiteButton.tsx";
import { COLUMNS, DEFAULT_COLUMNS } from "./columns.tsx";

/** The column chooser: which columns show (kept per operator in this browser). */
export function ColumnChooser({ shown, onChange }: { shown: string[]; onChange: (ids: string[]) => void }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="column-chooser">
      <LiteButton
        label="Columns"
        icon="pi pi-table"
        outlined
        size="small"
        aria-expanded={open}
        aria-controls="column-chooser-panel"
        onClick={() => setOpen(!open)}
      />
      {open && (
        <fieldset id="column-chooser-panel" className="column-chooser-panel">
          <legend>Shown columns</legend>
          {COLUMNS.map((c) => (
            <label key={c.id} className="column-choice">
              <input
                type="checkbox"
                checked={shown.includes(c.id)}
                disabled={c.id === "deviceId"}
                onChange={(e) =>
                  onChange(
                    e.target.checked
                      ? COLUMNS.filter((x) => x.id === c.id || shown.includes(x.id)).map((x) => x.id)
                      : shown.filter((id) => id !== c.id),
                  )}
              />{" "}
              {c.header}
            </label>
          ))}
          <LiteButton label="Default columns" link size="small" onClick={() => onChange(DEFAULT_COLUMNS)} />
        </fieldset>
      )}
    </div>
  );
}
