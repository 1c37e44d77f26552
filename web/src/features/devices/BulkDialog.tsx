/**
 * Changing many devices at once (docs/REQUIREMENTS.md §16, POST devices/bulk): pick what to set, then a confirmation
 * that says how many devices (counted by the server when it opens) and what changes, with focus on "Back to the
 * change"; one transaction on the server, any failure changes none. Loaded only when opened.
 */
import { useQuery } from "@tanstack/react-query";
import { Button } from "primereact/button";
import { useState } from "react";
import { AppDialog } from "../../components/AppDialog.tsx";
import { TreatmentPicker } from "../../components/TreatmentPicker.tsx";
import { errorMessage, useNotify, useNotifyError } from "../../lib/notify.ts";
import { firmwareOption, firmwaresQuery } from "../firmwares/api.ts";
import { productTypesQuery } from "../product_types/api.ts";
import { treatmentSummariesQuery } from "../treatments/api.ts";
import { countMatching, deviceKeys, useBulkDevices } from "./api.ts";
import { bulkConfirm } from "./confirmTexts.ts";
import { bulkTarget, deviceCount, type DeviceSelection, selectionExact, selectionSize } from "./selection.ts";
import { apiFilter } from "./urlState.ts";

const KEEP = "__keep__";
const NONE = "__none__";

export default function BulkDialog({ selection, onDone }: {
  selection: DeviceSelection;
  onDone: (changed: boolean) => void;
}) {
  const productTypes = useQuery(productTypesQuery());
  const firmwares = useQuery(firmwaresQuery());
  const treatments = useQuery(treatmentSummariesQuery());
  const bulk = useBulkDevices();
  const notify = useNotify();
  const notifyError = useNotifyError();
  const [productType, setProductType] = useState(KEEP);
  const [firmware, setFirmware] = useState(KEEP);
  const [setTreatments, setSetTreatments] = useState(false);
  const [treatmentIds, setTreatmentIds] = useState<string[]>([]);
  const [confirming, setConfirming] = useState(false);
  const n = selectionSize(selection);
  const devices = deviceCount(n, selectionExact(selection));
  // The confirmation's number is the server's: "all matching" is counted again when it opens (devices may have come,
  // gone or changed since the list was read, and the list's total can be a lower bound).
  const matching = selection.kind === "matching" ? selection.filter : null;
  const counted = useQuery({
    queryKey: [...deviceKeys.all, "bulk-count", matching] as const,
    queryFn: () => countMatching(matching!),
    enabled: confirming && matching !== null,
    gcTime: 0,
    staleTime: 0,
  });
  const count = matching === null ? n : counted.data ?? null;
  const confirmText = bulkConfirm(count);

  const typeName = (id: string) => productTypes.data?.find((t) => t._id === id)?.name ?? id;
  const firmwareName = (id: string) => firmwares.data?.find((f) => f._id === id)?.name ?? id;
  const treatmentName = (id: string) => treatments.data?.find((t) => t._id === id)?.name ?? id;

  const changes: string[] = [];
  if (productType !== KEEP) {
    changes.push(
      productType === NONE
        ? "Product type: none (their enabled modules are removed)"
        : `Product type: ${typeName(productType)} (enabled modules of another product type are removed)`,
    );
  }
  if (firmware !== KEEP) {
    changes.push(
      firmware === NONE
        ? "Custom firmware: none (the default device firmware applies)"
        : `Custom firmware: ${firmwareName(firmware)}`,
    );
  }
  if (setTreatments) {
    changes.push(
      `Additional treatments replaced by: ${treatmentIds.length ? treatmentIds.map(treatmentName).join(", ") : "none"}`,
    );
  }

  const apply = () => {
    const set: { productTypeId?: string | null; firmware?: string | null; additionalTreatmentIds?: string[] } = {};
    if (productType !== KEEP) set.productTypeId = productType === NONE ? null : productType;
    if (firmware !== KEEP) set.firmware = firmware === NONE ? null : firmware;
    if (setTreatments) set.additionalTreatmentIds = treatmentIds;
    bulk.mutateAsync({ ...bulkTarget(selection, apiFilter), set }).then(
      (r) => {
        notify("Devices changed", `${r.updated} device${r.updated === 1 ? "" : "s"} changed.`);
        onDone(true);
      },
      (err) => {
        notifyError(err);
        setConfirming(false);
      },
    );
  };

  if (confirming) {
    return (
      <AppDialog
        key="confirm"
        visible
        header={confirmText.header}
        onHide={() => setConfirming(false)}
        style={{ width: "34rem", maxWidth: "95vw" }}
        footer={
          <div>
            <Button
              label={confirmText.keep}
              icon="pi pi-arrow-left"
              outlined
              autoFocus
              onClick={() => setConfirming(false)}
            />
            <Button
              label={confirmText.accept}
              icon="pi pi-check"
              loading={bulk.isPending}
              disabled={bulk.isPending || !count}
              onClick={apply}
            />
          </div>
        }
      >
        {counted.isError
          ? <p className="m-0" role="alert">The selected devices could not be counted: {errorMessage(counted.error)}</p>
          : <p className="m-0" aria-live="polite">{confirmText.message}</p>}
        <ul className="bulk-changes">
          {changes.map((c) => <li key={c}>{c}</li>)}
        </ul>
      </AppDialog>
    );
  }

  return (
    <AppDialog
      key="form"
      visible
      header={`Change ${devices}`}
      onHide={() => onDone(false)}
      style={{ width: "36rem", maxWidth: "95vw" }}
      footer={
        <div>
          <Button label="Cancel" icon="pi pi-times" outlined onClick={() => onDone(false)} />
          <Button
            label="Review change"
            icon="pi pi-arrow-right"
            disabled={changes.length === 0}
            onClick={() => setConfirming(true)}
          />
        </div>
      }
    >
      <div className="bulk-form">
        <div className="filter-field">
          <label htmlFor="bulk-product-type">Product type</label>
          <select
            id="bulk-product-type"
            className="p-inputtext p-component"
            value={productType}
            onChange={(e) => setProductType(e.target.value)}
          >
            <option value={KEEP}>Leave as it is</option>
            <option value={NONE}>No product type assigned</option>
            {(productTypes.data ?? []).map((t) => <option key={t._id} value={t._id}>{t.name}</option>)}
          </select>
        </div>
        <div className="filter-field">
          <label htmlFor="bulk-firmware">Custom device firmware</label>
          <select
            id="bulk-firmware"
            className="p-inputtext p-component"
            value={firmware}
            onChange={(e) => setFirmware(e.target.value)}
          >
            <option value={KEEP}>Leave as it is</option>
            <option value={NONE}>Default device firmware</option>
            {(firmwares.data ?? []).map(firmwareOption).map((o) => (
              <option key={o.value} value={o.value} disabled={o.disabled}>{o.label}</option>
            ))}
          </select>
        </div>
        <fieldset className="bulk-treatments">
          <legend>Additional treatments</legend>
          <label>
            <input type="checkbox" checked={setTreatments} onChange={(e) => setSetTreatments(e.target.checked)} />{" "}
            Replace the additional treatments of every selected device
          </label>
          {setTreatments && (
            <>
              <ul className="bulk-treatment-list">
                {treatmentIds.map((id) => (
                  <li key={id}>
                    {treatmentName(id)}{" "}
                    <Button
                      icon="pi pi-times"
                      text
                      size="small"
                      aria-label={`Remove ${treatmentName(id)}`}
                      onClick={() => setTreatmentIds(treatmentIds.filter((x) => x !== id))}
                    />
                  </li>
                ))}
                {treatmentIds.length === 0 && <li>None</li>}
              </ul>
              <TreatmentPicker
                treatments={treatments.data}
                excludeIds={treatmentIds}
                onPick={(t) => setTreatmentIds([...treatmentIds, t._id])}
              />
            </>
          )}
        </fieldset>
      </div>
    </AppDialog>
  );
}
