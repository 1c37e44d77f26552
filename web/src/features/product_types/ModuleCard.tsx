import { Link } from "wouter";
import { Button } from "primereact/button";
import { Card } from "primereact/card";
import { Chip } from "primereact/chip";
import type { Module } from "../../../../shared/schemas/product_type.ts";
import { maxChannels, type Treatment } from "../../../../shared/schemas/treatment.ts";
import { sortIdsByName } from "./modules.ts";

export interface ModuleCardProps {
  module: Module;
  treatmentsById: ReadonlyMap<string, Treatment>;
  onEdit: () => void;
  onDelete: () => void;
}

/** One module: name, 'Default' chip, edit/delete buttons and its treatments with channel count and category. */
export function ModuleCard({ module, treatmentsById, onEdit, onDelete }: ModuleCardProps) {
  const ids = sortIdsByName(module.treatmentIds, (id) => treatmentsById.get(id)?.name);
  const title = (
    <div style={{ display: "flex", alignItems: "center", gap: "0.75rem" }}>
      <span>{module.name}</span>
      {module.isDefault && <Chip label="Default" />}
      <span style={{ flex: 1 }} />
      <Button icon="pi pi-pencil" rounded text aria-label={`Edit module ${module.name}`} onClick={onEdit} />
      <Button
        icon="pi pi-trash"
        rounded
        text
        severity="danger"
        aria-label={`Delete module ${module.name}`}
        onClick={onDelete}
      />
    </div>
  );
  return (
    <Card title={title} className="module-card" aria-label={`Module ${module.name}`}>
      {ids.length === 0
        ? <p style={{ margin: 0 }}>No treatments present</p>
        : (
          <table style={{ borderCollapse: "collapse", width: "100%" }}>
            <tbody>
              {ids.map((id) => {
                const t = treatmentsById.get(id);
                return (
                  <tr key={id}>
                    <td style={{ padding: "0.2rem 1rem 0.2rem 0" }}>
                      <Link className="cell-link" href={`/treatments/${encodeURIComponent(id)}`}>{t?.name ?? id}</Link>
                    </td>
                    <td style={{ padding: "0.2rem 1rem", whiteSpace: "nowrap" }}>
                      {t ? `${maxChannels(t.phases)} ch` : ""}
                    </td>
                    <td style={{ padding: "0.2rem 0" }}>{t?.category ?? "-"}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
    </Card>
  );
}
