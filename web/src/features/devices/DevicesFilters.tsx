import { memo, useEffect, useState } from "react";
import type { Overview } from "../../../../shared/schemas/device.ts";
import { LiteButton } from "../../components/LiteButton.tsx";
import { AdmissionFilter } from "./Admission.tsx";
import { FilterSelect } from "./FilterSelect.tsx";
import type { DevicesFilterState } from "./urlState.ts";

const SEEN_LABELS = {
  "24h": "Within 24 hours",
  "7d": "Within 7 days",
  stale: "More than 7 days ago",
  never: "Never",
} as const;
const UPDATE_LABELS = {
  downloading: "Downloading",
  installing: "Installing",
  installed: "Installed",
  failed: "Failed",
  none: "No report",
} as const;

interface Named {
  _id: string;
  name: string;
}

export interface DevicesFiltersProps {
  filter: DevicesFilterState;
  /** Some filter (or the search) is set: "Clear filters" shows. */
  filtered: boolean;
  productTypes: readonly Named[] | undefined;
  firmwares: readonly Named[] | undefined;
  apps: Overview["apps"] | undefined;
  /** DEVICE_AUTH=token: the admission filter shows, with the pending count. */
  tokenMode: boolean;
  pending: number | null;
  onChange: (change: Partial<DevicesFilterState>) => void;
  onClear: () => void;
}

/** The devices list's filters (docs/REQUIREMENTS.md §16): native selects, each labelled; every change goes to the URL. */
export const DevicesFilters = memo(function DevicesFilters(
  { filter, filtered, productTypes, firmwares, apps, tokenMode, pending, onChange, onClear }: DevicesFiltersProps,
) {
  const [osText, setOsText] = useState(filter.os);
  useEffect(() => setOsText(filter.os), [filter.os]);
  const knownFirmware = filter.firmware === "" || ["custom", "default"].includes(filter.firmware) ||
    (firmwares ?? []).some((f) => f._id === filter.firmware);
  return (
    <div className="devices-filters" role="group" aria-label="Filters">
      <FilterSelect
        id="filter-product-type"
        label="Product type"
        value={filter.productTypeId}
        onChange={(v) => onChange({ productTypeId: v })}
      >
        <option value="">All</option>
        <option value="none">No product type</option>
        {(productTypes ?? []).map((t) => <option key={t._id} value={t._id}>{t.name}</option>)}
      </FilterSelect>
      <FilterSelect
        id="filter-firmware"
        label="Firmware in effect"
        value={filter.firmware}
        onChange={(v) => onChange({ firmware: v })}
      >
        <option value="">All</option>
        <option value="custom">Custom firmware set</option>
        <option value="default">Default device firmware</option>
        {(firmwares ?? []).map((f) => <option key={f._id} value={f._id}>{f.name}</option>)}
        {!knownFirmware && <option value={filter.firmware}>{filter.firmware}</option>}
      </FilterSelect>
      <FilterSelect id="filter-app" label="App version" value={filter.app} onChange={(v) => onChange({ app: v })}>
        <option value="">All</option>
        {(apps ?? []).filter((a) => a.version !== null).map((a) => (
          <option key={a.version} value={a.version!}>{a.version} ({a.devices})</option>
        ))}
        {filter.app && !apps?.some((a) => a.version === filter.app) && <option value={filter.app}>{filter.app}</option>}
      </FilterSelect>
      <div className="filter-field">
        <label htmlFor="filter-os">OS version</label>
        <input
          id="filter-os"
          className={`p-inputtext p-component${osText ? " p-filled" : ""}`}
          value={osText}
          maxLength={200}
          placeholder="Exact version"
          onChange={(e) => setOsText(e.target.value)}
          onBlur={() => osText.trim() !== filter.os && onChange({ os: osText.trim() })}
          onKeyDown={(e) => e.key === "Enter" && onChange({ os: osText.trim() })}
        />
      </div>
      <FilterSelect
        id="filter-seen"
        label="Last check-in"
        value={filter.seen}
        onChange={(v) => onChange({ seen: v as DevicesFilterState["seen"] })}
      >
        <option value="">Any time</option>
        {Object.entries(SEEN_LABELS).map(([k, label]) => <option key={k} value={k}>{label}</option>)}
      </FilterSelect>
      <FilterSelect
        id="filter-update"
        label="Update"
        value={filter.update}
        onChange={(v) => onChange({ update: v as DevicesFilterState["update"] })}
      >
        <option value="">Any state</option>
        {Object.entries(UPDATE_LABELS).map(([k, label]) => <option key={k} value={k}>{label}</option>)}
      </FilterSelect>
      {tokenMode && (
        <AdmissionFilter
          value={filter.admission || undefined}
          pending={pending}
          onChange={(next) => onChange({ admission: next ?? "" })}
        />
      )}
      {filtered && <LiteButton label="Clear filters" icon="pi pi-filter-slash" text size="small" onClick={onClear} />}
    </div>
  );
});
