import type { ReactNode } from "react";

/** A labelled native select: light, and every browser's own keyboard and screen-reader support. */
export function FilterSelect({ id, label, value, onChange, children }: {
  id: string;
  label: string;
  value: string;
  onChange: (v: string) => void;
  children: ReactNode;
}) {
  return (
    <div className="filter-field">
      <label htmlFor={id}>{label}</label>
      <select id={id} className="p-inputtext p-component" value={value} onChange={(e) => onChange(e.target.value)}>
        {children}
      </select>
    </div>
  );
}
