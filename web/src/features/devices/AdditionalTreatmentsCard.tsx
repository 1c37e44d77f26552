import { useQuery } from "@tanstack/react-query";
import { Button } from "primereact/button";
import { Card } from "primereact/card";
import { useState } from "react";
import { Link } from "wouter";
import { maxChannels } from "../../../../shared/schemas/treatment.ts";
import { TreatmentPicker } from "../../components/TreatmentPicker.tsx";
import { treatmentsQuery } from "../treatments/api.ts";
import type { DeviceCardProps } from "./types.ts";

/** 'Additional treatments': add through the picker (no duplicates), remove, click to open the treatment. */
export function AdditionalTreatmentsCard({ device, busy, save }: DeviceCardProps) {
  const treatments = useQuery(treatmentsQuery());
  const [picking, setPicking] = useState(false);
  const byId = new Map((treatments.data ?? []).map((t) => [t._id, t]));
  const ids = device.additionalTreatmentIds;

  return (
    <Card
      title={
        <div className="flex align-items-center justify-content-between">
          <span>Additional treatments</span>
          <Button
            icon={picking ? "pi pi-times" : "pi pi-plus"}
            rounded
            text
            aria-label={picking ? "Close treatment picker" : "Add treatment"}
            tooltip={picking ? undefined : "Add treatment"}
            tooltipOptions={{ position: "top" }}
            aria-expanded={picking}
            disabled={busy && !picking}
            onClick={() => setPicking((p) => !p)}
          />
        </div>
      }
    >
      {picking && (
        <div className="mb-3">
          <TreatmentPicker
            treatments={treatments.data}
            excludeIds={ids}
            autoFocus
            disabled={busy}
            onPick={async (t) => {
              if (ids.includes(t._id)) return;
              if (await save({ additionalTreatmentIds: [...ids, t._id] })) setPicking(false);
            }}
          />
        </div>
      )}
      {ids.length === 0 && <p className="m-0 text-secondary">No additional treatments</p>}
      <ul className="m-0" style={{ listStyle: "none", padding: 0 }} aria-label="Additional treatments">
        {ids.map((id) => {
          const t = byId.get(id);
          const name = t?.name ?? id;
          return (
            <li key={id} className="treatment-entry">
              <Button
                icon="pi pi-trash"
                rounded
                text
                severity="danger"
                aria-label={`Remove ${name}`}
                disabled={busy}
                onClick={() => save({ additionalTreatmentIds: ids.filter((x) => x !== id) })}
              />
              <Link href={`/treatments/${encodeURIComponent(id)}`}>
                <span className="name">{name}</span>
                {t && <span className="meta">{maxChannels(t.phases)} ch</span>}
                {t?.category && <span className="meta">{t.category}</span>}
              </Link>
            </li>
          );
        })}
      </ul>
    </Card>
  );
}
