import { useQuery } from "@tanstack/react-query";
import { Button } from "primereact/button";
import { Card } from "primereact/card";
import { Dropdown } from "primereact/dropdown";
import { dropdownA11y } from "../../components/dropdownA11y.ts";
import { useState } from "react";
import { useLocation } from "wouter";
import { ConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { ConflictNotice } from "../../components/ConflictNotice.tsx";
import { byId } from "../../lib/focus.ts";
import { productTypesQuery } from "../product_types/api.ts";
import { PRODUCT_TYPE_BUTTONS } from "./confirmTexts.ts";
import type { DeviceCardProps } from "./types.ts";

/** PrimeReact treats a null value as "nothing selected"; this stands for "no product type". */
const NONE = "__none__";
const INPUT_ID = "device-product-type";

/** What a product type change removes: the device's enabled modules (they belong to the old type). */
export function modulesRemovedText(names: readonly string[]): string {
  if (names.length === 0) return "No enabled modules will be removed.";
  const n = names.length;
  return `${n} enabled module${n === 1 ? "" : "s"} will be removed: ${names.join(", ")}.`;
}

/** The asked change, with what the device had before (kept while the dialog closes). */
interface Asked {
  next: string | null;
  before: string | null;
  beforeModules: string[];
  removedNames: string[];
}

/**
 * Product type dropdown with a jump button. A change asks for confirmation, saying how many enabled modules it
 * removes, then clears the modules; the toast offers Undo (type and modules come back).
 */
export function ProductTypeCard({ device, busy, save }: DeviceCardProps) {
  const [, navigate] = useLocation();
  const types = useQuery(productTypesQuery());
  const [asked, setAsked] = useState<Asked | null>(null);
  const [open, setOpen] = useState(false);
  const [conflicted, setConflicted] = useState(false);
  const current = device.productTypeId;
  const options = [
    { label: "No product type assigned", value: NONE },
    ...(types.data ?? []).map((t) => ({ label: t.name, value: t._id })),
  ];
  const nameOf = (id: string | null) => (id ? types.data?.find((t) => t._id === id)?.name ?? id : "none");

  const ask = (next: string | null) => {
    const modules = types.data?.find((t) => t._id === current)?.modules ?? [];
    setAsked({
      next,
      before: current,
      beforeModules: device.moduleIds,
      removedNames: device.moduleIds.map((id) => modules.find((m) => m._id === id)?.name ?? id),
    });
    setConflicted(false);
    setOpen(true);
  };

  const confirm = async () => {
    if (!asked) return;
    const { next, before, beforeModules, removedNames } = asked;
    const removed = removedNames.length;
    // The new product type (or null) and an emptied module list.
    setConflicted(false);
    let kept = false;
    await save({ productTypeId: next, moduleIds: [] }, {
      summary: "Product type changed",
      detail: `Device ${device.deviceId}: product type ${nameOf(next)}` +
        (removed ? `, ${removed} enabled module${removed === 1 ? "" : "s"} removed.` : "."),
      undo: before !== null ? { productTypeId: before, moduleIds: beforeModules } : undefined,
      focus: byId(INPUT_ID),
      onConflict: () => {
        kept = true;
        setConflicted(true);
      },
    });
    if (!kept) setOpen(false);
  };

  return (
    <Card title="Product type">
      <label htmlFor={INPUT_ID} className="visually-hidden">Product type</label>
      <div className="flex gap-2 align-items-center">
        <Dropdown
          inputId={INPUT_ID}
          value={current ?? NONE}
          options={options}
          onChange={(e) => {
            const next = e.value === NONE ? null : (e.value as string);
            if (next !== current) ask(next);
          }}
          disabled={busy || types.isPending}
          loading={types.isPending}
          filter={options.length > 10}
          pt={dropdownA11y("Product type")}
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
        visible={open}
        header={`Change product type to ${nameOf(asked?.next ?? null)}?`}
        message="Are you sure you want to change product type?"
        details={asked && (
          <>
            {conflicted && (
              <ConflictNotice
                item="device"
                current={`product type ${nameOf(current)}`}
                action={PRODUCT_TYPE_BUTTONS.accept}
              />
            )}
            <p className="m-0">{modulesRemovedText(asked.removedNames)}</p>
          </>
        )}
        destructive={(asked?.removedNames.length ?? 0) > 0 || asked?.next === null}
        busy={busy}
        acceptLabel={PRODUCT_TYPE_BUTTONS.accept}
        cancelLabel={PRODUCT_TYPE_BUTTONS.keep}
        onHide={() => setOpen(false)}
        onAccept={confirm}
      />
    </Card>
  );
}
