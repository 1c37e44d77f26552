import type { CSSProperties } from "react";
import { Link } from "wouter";
import { Button } from "primereact/button";
import { Card } from "primereact/card";
import { Chip } from "primereact/chip";
import type { Module } from "../../../../shared/schemas/product_type.ts";
import type { TreatmentSummary } from "../../../../shared/schemas/treatment.ts";
import { Skeleton } from "../../components/Skeleton.tsx";
import { sortIdsByName } from "./modules.ts";

export interface ModuleCardProps {
  module: Module;
  treatmentsById: ReadonlyMap<string, TreatmentSummary>;
  /** The treatments' names are still loading: skeletons stand in for them, not their ids. */
  loading?: boolean;
  /** A viewer: no edit or delete buttons. */
  readOnly?: boolean;
  onEdit: () => void;
  onDelete: () => void;
}

/** One module: name, 'Default' chip, edit/delete buttons and its treatments with channel count and category. */
export function ModuleCard({ module, treatmentsById, loading, readOnly, onEdit, onDelete }: ModuleCardProps) {
  const ids = sortIdsByName(module.treatmentIds, (id) => treatmentsById.get(id)?.name);
  const title = (
    <div style={{ display: "flex", alignItems: "center", gap: "0.75rem" }}>
      <span className="ellipsis" title={module.name}>{module.name}</span>
      {module.isDefault && <Chip label="Default" />}
      <span style={{ flex: 1 }} />
      {!readOnly && (
        <>
          <Button icon="pi pi-pencil" rounded text aria-label={`Edit module ${module.name}`} onClick={onEdit} />
          <Button
            icon="pi pi-trash"
            rounded
            text
            severity="danger"
            aria-label={`Delete module ${module.name}`}
            onClick={onDelete}
          />
        </>
      )}
    </div>
  );
  return (
    <Card title={title} className="module-card" aria-label={`Module ${module.name}`}>
      {ids.length === 0
        ? <p className="m-0">No treatments present</p>
        : (
          <ul style={{ listStyle: "none", margin: 0, padding: 0 }}>
            {ids.map((id) => {
              const t = treatmentsById.get(id);
              return (
                <li key={id} style={entryStyle}>
                  {loading ? <Skeleton width="12rem" style={{ flex: "none" }} /> : (
                    <Link
                      className="cell-link wrap-anywhere"
                      href={`/treatments/${encodeURIComponent(id)}`}
                      style={{ flex: 1 }}
                    >
                      {t?.name ?? id}
                    </Link>
                  )}
                  {t && <span style={metaStyle}>{t.channels} ch</span>}
                  {t && <span style={{ ...metaStyle, minWidth: "7rem" }}>{t.category ?? "-"}</span>}
                </li>
              );
            })}
          </ul>
        )}
    </Card>
  );
}

const entryStyle: CSSProperties = {
  display: "flex",
  alignItems: "baseline",
  gap: "0.75rem",
  padding: "0.35rem 0",
  borderBottom: "1px solid var(--surface-border)",
};
const metaStyle: CSSProperties = { color: "var(--text-color-secondary)", fontSize: "0.9rem", whiteSpace: "nowrap" };
