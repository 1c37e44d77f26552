import { useQuery } from "@tanstack/react-query";
import { Card } from "primereact/card";
import { Checkbox } from "primereact/checkbox";
import { productTypeQuery } from "../product_types/api.ts";
import type { DeviceCardProps } from "./types.ts";

/** 'Enabled modules': the product type's modules; default ones are always on and cannot be unchecked. */
export function ModulesCard({ device, busy, save }: DeviceCardProps) {
  const typeId = device.productTypeId;
  const type = useQuery({ ...productTypeQuery(typeId ?? ""), enabled: !!typeId });
  const modules = type.data?.modules ?? [];
  const enabled = new Set(device.moduleIds);

  const toggle = (id: string, on: boolean) =>
    save({ moduleIds: on ? [...device.moduleIds, id] : device.moduleIds.filter((m) => m !== id) });

  return (
    <Card title="Enabled modules">
      {!typeId && <p className="m-0 text-secondary">No product type assigned</p>}
      {typeId && type.isPending && <p className="m-0 text-secondary">Loading modules…</p>}
      {typeId && type.isError && <p className="m-0 p-error" role="alert">Error loading data.</p>}
      {typeId && type.data && modules.length === 0 && (
        <p className="m-0 text-secondary">This product type has no modules.</p>
      )}
      {modules.map((m) => {
        const inputId = `module-${m._id}`;
        return (
          <div key={m._id} className="module-item">
            <Checkbox
              inputId={inputId}
              checked={m.isDefault || enabled.has(m._id)}
              disabled={m.isDefault || busy}
              onChange={(e) => toggle(m._id, !!e.checked)}
            />
            <label htmlFor={inputId}>
              {m.name} {m.isDefault && <span className="text-secondary">(Default)</span>}
            </label>
          </div>
        );
      })}
    </Card>
  );
}
