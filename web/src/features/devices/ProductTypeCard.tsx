import { useQuery } from "@tanstack/react-query";
import { Button } from "primereact/button";
import { Card } from "primereact/card";
import { Dropdown } from "primereact/dropdown";
import { useState } from "react";
import { useLocation } from "wouter";
import { ConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { productTypesQuery } from "../product_types/api.ts";
import type { DeviceCardProps } from "./types.ts";

/** PrimeReact treats a null value as "nothing selected"; this stands for "no product type". */
const NONE = "__none__";

/** Product type dropdown with a jump button; a change asks for confirmation, then clears the modules. */
export function ProductTypeCard({ device, busy, save }: DeviceCardProps) {
  const [, navigate] = useLocation();
  const types = useQuery(productTypesQuery());
  const [pending, setPending] = useState<string | null | undefined>(undefined);
  const current = device.productTypeId;
  const options = [
    { label: "No product type assigned", value: NONE },
    ...(types.data ?? []).map((t) => ({ label: t.name, value: t._id })),
  ];
  const pendingName = pending ? types.data?.find((t) => t._id === pending)?.name ?? pending : "none";

  return (
    <Card title="Product type">
      <label htmlFor="device-product-type" className="visually-hidden">Product type</label>
      <div className="flex gap-2 align-items-center">
        <Dropdown
          inputId="device-product-type"
          value={current ?? NONE}
          options={options}
          onChange={(e) => {
            const next = e.value === NONE ? null : (e.value as string);
            if (next !== current) setPending(next);
          }}
          disabled={busy || types.isPending}
          loading={types.isPending}
          filter={options.length > 10}
          style={{ flex: 1, minWidth: 0 }}
        />
        <Button
          icon="pi pi-external-link"
          outlined
          aria-label="Open product type"
          tooltip="Open product type"
          tooltipOptions={{ position: "top" }}
          disabled={!current}
          onClick={() => current && navigate(`/product_types/${encodeURIComponent(current)}`)}
        />
      </div>
      <ConfirmDialog
        visible={pending !== undefined}
        header={`Change product type to ${pendingName}?`}
        message="Are you sure you want to change product type?"
        busy={busy}
        onHide={() => setPending(undefined)}
        onAccept={async () => {
          if (pending === undefined) return;
          // SPEC §4: the new product type (or null) and an emptied module list.
          await save({ productTypeId: pending, moduleIds: [] });
          setPending(undefined);
        }}
      />
    </Card>
  );
}
