import { useQuery } from "@tanstack/react-query";
import { Card } from "primereact/card";
import { Checkbox } from "primereact/checkbox";
import { byId } from "../../lib/focus.ts";
import { productTypeQuery } from "../product_types/api.ts";
import type { DeviceCardProps } from "./types.ts";

/**
 * 'Enabled modules': the product type's modules; default ones are always on and cannot be unchecked. A toggle saves
 * at once and is reported in a toast; switching a module off can be undone.
 */
export function ModulesCard({ device, busy, save }: DeviceCardProps) {
  const typeId = device.productTypeId;
  const type = useQuery({ ...productTypeQuery(typeId ?? ""), enabled: !!typeId });
  const modules = type.data?.modules ?? [];
  const enabled = new Set(device.moduleIds);

  const toggle = (id: string, name: string, on: boolean) => {
    const before = device.moduleIds;
    return save({ moduleIds: on ? [...before, id] : before.filter((m) => m !== id) }, {
      summary: on ? "Module enabled" : "Module disabled",
      detail: `${name} ${on ? "enabled on" : "disabled on"} device ${device.deviceId}.`,
      undo: on ? undefined : { moduleIds: before },
      focus: byId(`module-${id}`),
    });
  };

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
              onChange={(e) => toggle(m._id, m.name, !!e.checked)}
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
