import { useQuery } from "@tanstack/react-query";
import { Button } from "primereact/button";
import { Card } from "primereact/card";
import { useState } from "react";
import { Link } from "wouter";
import { ConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { Skeleton } from "../../components/Skeleton.tsx";
import { TreatmentPicker } from "../../components/TreatmentPicker.tsx";
import { byId } from "../../lib/focus.ts";
import { treatmentSummariesQuery } from "../treatments/api.ts";
import { treatmentConfirm } from "./confirmTexts.ts";
import type { DeviceCardProps } from "./types.ts";

const ADD_ID = "device-add-treatment";
const removeButtonId = (treatmentId: string) => `device-remove-treatment-${treatmentId}`;

/** An add or a removal the operator is asked to confirm. */
type Asked = { kind: "add" | "remove"; id: string; name: string };

/**
 * 'Additional treatments': add through the picker (no duplicates), remove, click to open the treatment. Both ask
 * first and are reported in a toast; a removal can be undone (the treatment goes back to its place in the list).
 */
export function AdditionalTreatmentsCard({ device, busy, save }: DeviceCardProps) {
  const treatments = useQuery(treatmentSummariesQuery());
  const [picking, setPicking] = useState(false);
  const [asked, setAsked] = useState<Asked | null>(null);
  const [open, setOpen] = useState(false);
  const byTreatmentId = new Map((treatments.data ?? []).map((t) => [t._id, t]));
  const ids = device.additionalTreatmentIds;
  const deviceId = device.deviceId;

  const ask = (a: Asked) => {
    setAsked(a);
    setOpen(true);
  };

  const confirm = async () => {
    if (!asked) return;
    const { kind, id, name } = asked;
    if (kind === "add") {
      if (ids.includes(id)) return setOpen(false);
      const ok = await save({ additionalTreatmentIds: [...ids, id] }, {
        summary: "Treatment added",
        detail: `${name} added to device ${deviceId}.`,
        focus: byId(ADD_ID),
      });
      if (ok) setPicking(false);
    } else {
      // Focus moves to the entry that takes the removed one's place, else the one before, else the add button.
      const at = ids.indexOf(id);
      const rest = ids.filter((x) => x !== id);
      const neighbour = rest[Math.min(at, rest.length - 1)];
      await save({ additionalTreatmentIds: rest }, {
        summary: "Treatment removed",
        detail: `${name} removed from device ${deviceId}.`,
        undo: { additionalTreatmentIds: ids },
        focus: byId(neighbour ? removeButtonId(neighbour) : ADD_ID),
        undoFocus: byId(removeButtonId(id)),
      });
    }
    setOpen(false);
  };

  const text = asked && treatmentConfirm(asked.kind, deviceId, asked.name);

  return (
    <Card
      title={
        <div className="flex align-items-center justify-content-between">
          <span>Additional treatments</span>
          <Button
            id={ADD_ID}
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
            onPick={(t) => {
              if (!ids.includes(t._id)) ask({ kind: "add", id: t._id, name: t.name });
            }}
          />
        </div>
      )}
      {ids.length === 0 && <p className="m-0 text-secondary">No additional treatments</p>}
      <ul className="m-0" style={{ listStyle: "none", padding: 0 }} aria-label="Additional treatments">
        {ids.map((id) => {
          const t = byTreatmentId.get(id);
          // Until the names are in, a skeleton stands in for the name and nothing can be removed by its id.
          const loading = treatments.isPending;
          const name = t?.name ?? id;
          return (
            <li key={id} className="treatment-entry" aria-busy={loading || undefined}>
              <Button
                id={removeButtonId(id)}
                icon="pi pi-trash"
                rounded
                text
                severity="danger"
                aria-label={loading ? "Remove treatment" : `Remove ${name}`}
                disabled={busy || loading}
                onClick={() => ask({ kind: "remove", id, name })}
              />
              <Link href={`/treatments/${encodeURIComponent(id)}`}>
                {loading ? <Skeleton width="12rem" /> : <span className="name" title={name}>{name}</span>}
                {t && <span className="meta">{t.channels} ch</span>}
                {t?.category && <span className="meta">{t.category}</span>}
              </Link>
            </li>
          );
        })}
      </ul>
      <ConfirmDialog
        visible={open}
        header={text?.header ?? ""}
        message={text?.message ?? ""}
        destructive={asked?.kind === "remove"}
        busy={busy}
        acceptLabel={text?.accept}
        cancelLabel={text?.keep}
        onHide={() => setOpen(false)}
        onAccept={confirm}
      />
    </Card>
  );
}
