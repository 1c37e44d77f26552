import { useQuery } from "@tanstack/react-query";
import { useAtom } from "jotai";
import { Button } from "primereact/button";
import { IconField } from "primereact/iconfield";
import { InputIcon } from "primereact/inputicon";
import { InputText } from "primereact/inputtext";
import { lazy, type ReactNode, Suspense, useEffect, useMemo, useState } from "react";
import { Link, useLocation, useSearch } from "wouter";
import type { Device, DeviceSort } from "../../../../shared/schemas/mod.ts";
import { PAGE_SIZES } from "../../../../shared/schemas/device.ts";
import { Skeleton, skeletonWidth } from "../../components/Skeleton.tsx";
import { LoadState } from "../../components/LoadState.tsx";
import { TablePaginator } from "../../components/TablePaginator.tsx";
import { formatDateTime } from "../../lib/format.ts";
import { useNotifyError } from "../../lib/notify.ts";
import { useSession } from "../../lib/session.ts";
import { firmwaresQuery } from "../firmwares/api.ts";
import { productTypesQuery } from "../product_types/api.ts";
import { AdmissionCell, AdmissionFilter, useAdmissionActions, useTokenMode } from "./Admission.tsx";
import { devicesQuery, downloadDevicesCsv, overviewQuery } from "./api.ts";
import { loadColumns, loadViews, saveColumns, type SavedView, saveViews } from "./savedViews.ts";
import { deviceCount, deviceSelectionAtom, NO_SELECTION, selectionSize } from "./selection.ts";
import {
  type DevicesFilterState,
  devicesUrlQuery,
  type DevicesUrlState,
  FILTER_KEYS,
  NO_FILTER,
  readDevicesUrl,
} from "./urlState.ts";

const BulkDialog = lazy(() => import("./BulkDialog.tsx"));

export const deviceHref = (id: string) => `/devices/${encodeURIComponent(id)}`;
const countOrDash = (n: number) => (n > 0 ? String(n) : "-");

interface Names {
  types: Map<string, string>;
  firmwares: Map<string, string>;
}

interface DeviceColumn {
  id: string;
  header: string;
  /** The server's sort key, when the column sorts. */
  sort?: DeviceSort;
  nowrap?: boolean;
  /** Fixed width (the table's layout is fixed: skeleton rows and data rows share the column widths). */
  width?: string;
  body: (d: Device, names: Names) => ReactNode;
}

/** Every column the list can show; SPEC's seven are the default. */
const COLUMNS: DeviceColumn[] = [
  {
    id: "deviceId",
    header: "Device ID",
    sort: "deviceId",
    nowrap: true,
    width: "10rem",
    body: (d) => (
      <Link
        href={deviceHref(d.deviceId)}
        className="cell-link"
        title={d.deviceId}
        onClick={(e) => e.stopPropagation()}
      >
        {d.deviceId}
      </Link>
    ),
  },
  {
    id: "productType",
    header: "Product Type",
    sort: "productType",
    width: "11rem",
    body: (d, n) => (d.productTypeId ? n.types.get(d.productTypeId) ?? "-" : "-"),
  },
  {
    id: "firmware",
    header: "Custom firmware",
    width: "11rem",
    body: (d, n) =>
      d.firmware
        ? (
          <span className="firmware-cell" title={n.firmwares.get(d.firmware) ?? d.firmware}>
            <i className="pi pi-exclamation-triangle warning-mark" role="img" aria-label="Custom firmware set" />{" "}
            {n.firmwares.get(d.firmware) ?? d.firmware}
          </span>
        )
        : null,
  },
  { id: "modules", header: "Additional Modules", width: "7.5rem", body: (d) => countOrDash(d.moduleIds.length) },
  {
    id: "treatments",
    header: "Additional Treatments",
    width: "8rem",
    body: (d) => countOrDash(d.additionalTreatmentIds.length),
  },
  {
    id: "lastLoggedIn",
    header: "Last login",
    sort: "lastLoggedIn",
    nowrap: true,
    width: "14rem",
    body: (d) => formatDateTime(d.lastLoggedIn),
  },
  {
    id: "updatedAt",
    header: "Updated",
    sort: "updatedAt",
    nowrap: true,
    width: "14rem",
    body: (d) => formatDateTime(d.updatedAt),
  },
  {
    id: "app",
    header: "App version",
    sort: "app",
    nowrap: true,
    width: "8rem",
    body: (d) => d.versionInfo?.app ?? "-",
  },
  { id: "os", header: "OS version", nowrap: true, width: "9rem", body: (d) => d.versionInfo?.os ?? "-" },
  {
    id: "createdAt",
    header: "Created",
    sort: "createdAt",
    nowrap: true,
    width: "14rem",
    body: (d) => formatDateTime(d.createdAt),
  },
];
const DEFAULT_COLUMNS = COLUMNS.slice(0, 7).map((c) => c.id);

const SEEN_LABELS = { "24h": "Within 24 hours", "7d": "Within 7 days", never: "Never" } as const;
const UPDATE_LABELS = {
  downloading: "Downloading",
  installing: "Installing",
  installed: "Installed",
  failed: "Failed",
  none: "No report",
} as const;

/** A labelled native select: light, and every browser's own keyboard and screen-reader support. */
function FilterSelect({ id, label, value, onChange, children }: {
  id: string;
  label: string;
  value: string;
  onChange: (v: string) => void;
  children: ReactNode;
}) {
  return (
    <div className="filter-field">
      <label htmlFor={id}>{label}</label>
      <select id={id} className="p-inputtext p-component" value={value} onChange={(e) => onChange(e.target.value)}>
        {children}
      </select>
    </div>
  );
}

/** The column chooser: which columns show (kept per operator in this browser). */
function ColumnChooser({ shown, onChange }: { shown: string[]; onChange: (ids: string[]) => void }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="column-chooser">
      <Button
        label="Columns"
        icon="pi pi-table"
        outlined
        size="small"
        aria-expanded={open}
        aria-controls="column-chooser-panel"
        onClick={() => setOpen(!open)}
      />
      {open && (
        <fieldset id="column-chooser-panel" className="column-chooser-panel">
          <legend>Shown columns</legend>
          {COLUMNS.map((c) => (
            <label key={c.id} className="column-choice">
              <input
                type="checkbox"
                checked={shown.includes(c.id)}
                disabled={c.id === "deviceId"}
                onChange={(e) =>
                  onChange(
                    e.target.checked
                      ? COLUMNS.filter((x) => x.id === c.id || shown.includes(x.id)).map((x) => x.id)
                      : shown.filter((id) => id !== c.id),
                  )}
              />{" "}
              {c.header}
            </label>
          ))}
          <Button label="Default columns" link size="small" onClick={() => onChange(DEFAULT_COLUMNS)} />
        </fieldset>
      )}
    </div>
  );
}

/** Saved views of this operator: open one, save the current one, delete one. */
function SavedViews({ who, current, onOpen }: { who: string | null; current: string; onOpen: (q: string) => void }) {
  const [views, setViews] = useState<SavedView[]>(() => loadViews(who));
  const [name, setName] = useState("");
  const [naming, setNaming] = useState(false);
  const store = (next: SavedView[]) => {
    setViews(next);
    saveViews(who, next);
  };
  return (
    <div className="saved-views">
      <FilterSelect
        id="saved-view"
        label="Saved view"
        value={views.find((v) => v.query === current)?.name ?? ""}
        onChange={(n) => {
          const view = views.find((v) => v.name === n);
          if (view) onOpen(view.query);
        }}
      >
        <option value="">—</option>
        {views.map((v) => <option key={v.name} value={v.name}>{v.name}</option>)}
      </FilterSelect>
      {naming
        ? (
          <form
            className="save-view-form"
            onSubmit={(e) => {
              e.preventDefault();
              const trimmed = name.trim();
              if (!trimmed) return;
              store([...views.filter((v) => v.name !== trimmed), { name: trimmed, query: current }]);
              setName("");
              setNaming(false);
            }}
          >
            <label htmlFor="view-name" className="visually-hidden">View name</label>
            <InputText
              id="view-name"
              value={name}
              maxLength={60}
              placeholder="View name"
              onChange={(e) => setName(e.target.value)}
              autoFocus
            />
            <Button type="submit" label="Save" size="small" disabled={!name.trim()} />
            <Button type="button" label="Cancel" size="small" text onClick={() => setNaming(false)} />
          </form>
        )
        : <Button label="Save view" icon="pi pi-bookmark" size="small" text onClick={() => setNaming(true)} />}
      {views.some((v) => v.query === current) && (
        <Button
          label="Delete view"
          icon="pi pi-trash"
          size="small"
          text
          severity="secondary"
          onClick={() => store(views.filter((v) => v.query !== current))}
        />
      )}
    </div>
  );
}

/**
 * Devices list: server-paged, sorted and filtered table; the whole view (page, size, search, filters, sort) lives in
 * the URL, so it can be bookmarked and shared. A plain <table> on PrimeReact's DataTable classes (same look) instead
 * of DataTable itself, which alone weighs 150 KB minified.
 */
export default function DevicesScreen() {
  const search = useSearch();
  const [, navigate] = useLocation();
  const { identity } = useSession();
  const notifyError = useNotifyError();
  const state = useMemo(() => readDevicesUrl(new URLSearchParams(search)), [search]);
  // Every change is a history entry, so Back undoes a page, size, search, filter or sort change.
  const go = (next: DevicesUrlState) => navigate(`/devices${devicesUrlQuery(next)}`);
  const setFilter = (change: Partial<DevicesFilterState>) => go({ ...state, ...change, page: 0 });
  const viewQuery = devicesUrlQuery({ ...state, page: 0, size: 25 });

  const [columnIds, setColumnIds] = useState<string[]>(() => loadColumns(identity, DEFAULT_COLUMNS));
  const columns = COLUMNS.filter((c) => columnIds.includes(c.id) || c.id === "deviceId");
  const chooseColumns = (ids: string[]) => {
    setColumnIds(ids);
    saveColumns(identity, ids);
  };

  // The search box follows the URL (back/forward) and writes to it after a short pause.
  const [text, setText] = useState(state.q);
  useEffect(() => setText((t) => (t.trim() === state.q ? t : state.q)), [state.q]);
  useEffect(() => {
    const trimmed = text.trim();
    if (trimmed === state.q) return;
    const timer = setTimeout(() => go({ ...state, q: trimmed, page: 0 }), 400);
    return () => clearTimeout(timer);
  }, [text]);
  const [osText, setOsText] = useState(state.os);
  useEffect(() => setOsText(state.os), [state.os]);

  const devices = useQuery(devicesQuery({ ...state, rowsPerPage: state.size }));
  const productTypes = useQuery(productTypesQuery());
  const firmwares = useQuery(firmwaresQuery());
  const overview = useQuery(overviewQuery());
  const names: Names = useMemo(() => ({
    types: new Map((productTypes.data ?? []).map((t) => [t._id, t.name])),
    firmwares: new Map((firmwares.data ?? []).map((f) => [f._id, f.name])),
  }), [productTypes.data, firmwares.data]);
  const failed = devices.error ?? productTypes.error;
  const total = devices.data?.total ?? 0;
  const exact = devices.data?.exact ?? true;
  const rows = devices.data?.data ?? [];
  const filterKey = JSON.stringify([state.q, ...FILTER_KEYS.map((k) => state[k])]);
  const filtered = filterKey !== JSON.stringify(["", ...FILTER_KEYS.map(() => "")]);

  // The selection: devices picked on any page, or "all N matching"; a new filter starts a new one.
  const [selection, setSelection] = useAtom(deviceSelectionAtom);
  useEffect(() => setSelection(NO_SELECTION), [filterKey]);
  const picked = selection.kind === "ids" ? new Set(selection.ids) : null;
  const isPicked = (id: string) => selection.kind === "matching" || picked!.has(id);
  const pageIds = rows.map((d) => d.deviceId);
  const allOnPage = pageIds.length > 0 && pageIds.every(isPicked);
  const toggle = (id: string, on: boolean) => {
    const ids = selection.kind === "ids" ? selection.ids : pageIds;
    setSelection({ kind: "ids", ids: on ? [...new Set([...ids, id])] : ids.filter((x) => x !== id) });
  };
  const togglePage = (on: boolean) => {
    const ids = selection.kind === "ids" ? selection.ids : [];
    setSelection({
      kind: "ids",
      ids: on ? [...new Set([...ids, ...pageIds])] : ids.filter((x) => !pageIds.includes(x)),
    });
  };
  const selected = selectionSize(selection);
  // CONTRACT §11 (DEVICE_AUTH=token only): the admission filter with the pending count, an admission column, and
  // accept/reject for the picked rows.
  const { tokenMode, pending } = useTokenMode();
  const admission = useAdmissionActions(() => setSelection(NO_SELECTION));
  const shownColumns: DeviceColumn[] = tokenMode
    ? [...columns, {
      id: "admission",
      header: "Admission",
      width: "11.5rem",
      body: (d) => <AdmissionCell device={d} ask={admission.ask} busy={admission.busy} />,
    }]
    : columns;
  const [bulkOpen, setBulkOpen] = useState(false);
  const [exporting, setExporting] = useState(false);

  // A page beyond the end (an old link, devices removed since) moves to the last page.
  const lastPage = Math.max(0, Math.ceil(total / state.size) - 1);
  useEffect(() => {
    if (devices.data && !devices.isPlaceholderData && state.page > lastPage) {
      navigate(`/devices${devicesUrlQuery({ ...state, page: lastPage })}`, { replace: true });
    }
  }, [devices.data, devices.isPlaceholderData, state.page, lastPage]);

  const sortBy = (key: DeviceSort) =>
    go({ ...state, sort: key, order: state.sort === key && state.order === "asc" ? "desc" : "asc", page: 0 });
  const ariaSort = (c: DeviceColumn) =>
    c.sort === undefined
      ? undefined
      : state.sort === c.sort
      ? (state.order === "asc" ? "ascending" : "descending")
      : "none";

  return (
    <section>
      <div className="page-header">
        <div>
          <h1>Devices</h1>
          <div className="page-sub">
            {devices.data && !failed ? `${deviceCount(total, exact)}${filtered ? " match" : ""}` : "\u00a0"}
          </div>
        </div>
        <div className="page-actions">
          <Button
            label="Export CSV"
            icon="pi pi-download"
            outlined
            size="small"
            loading={exporting}
            onClick={() => {
              setExporting(true);
              downloadDevicesCsv(state, state.sort, state.order).catch(notifyError).finally(() => setExporting(false));
            }}
          />
        </div>
      </div>
      <div className="devices-toolbar">
        <label htmlFor="device-search" className="visually-hidden">Search on device ID</label>
        <IconField iconPosition="left">
          <InputIcon className="pi pi-search" />
          <InputText
            id="device-search"
            type="search"
            placeholder="Search on device ID"
            value={text}
            maxLength={128}
            onChange={(e) => setText(e.target.value)}
            style={{ width: "20rem", maxWidth: "100%" }}
          />
        </IconField>
        <SavedViews who={identity} current={viewQuery} onOpen={(q) => navigate(`/devices${q}`)} />
        <ColumnChooser shown={columnIds} onChange={chooseColumns} />
      </div>
      <div className="devices-filters" role="group" aria-label="Filters">
        <FilterSelect
          id="filter-product-type"
          label="Product type"
          value={state.productTypeId}
          onChange={(v) => setFilter({ productTypeId: v })}
        >
          <option value="">All</option>
          <option value="none">No product type</option>
          {(productTypes.data ?? []).map((t) => <option key={t._id} value={t._id}>{t.name}</option>)}
        </FilterSelect>
        <FilterSelect
          id="filter-firmware"
          label="Firmware in effect"
          value={state.firmware}
          onChange={(v) => setFilter({ firmware: v })}
        >
          <option value="">All</option>
          <option value="custom">Custom firmware set</option>
          <option value="default">Default device firmware</option>
          {(firmwares.data ?? []).map((f) => <option key={f._id} value={f._id}>{f.name}</option>)}
          {state.firmware && !["custom", "default"].includes(state.firmware) &&
            !names.firmwares.has(state.firmware) && <option value={state.firmware}>{state.firmware}</option>}
        </FilterSelect>
        <FilterSelect id="filter-app" label="App version" value={state.app} onChange={(v) => setFilter({ app: v })}>
          <option value="">All</option>
          {(overview.data?.apps ?? []).filter((a) => a.version !== null).map((a) => (
            <option key={a.version} value={a.version!}>{a.version} ({a.devices})</option>
          ))}
          {state.app && !overview.data?.apps.some((a) => a.version === state.app) && (
            <option value={state.app}>{state.app}</option>
          )}
        </FilterSelect>
        <div className="filter-field">
          <label htmlFor="filter-os">OS version</label>
          <InputText
            id="filter-os"
            value={osText}
            maxLength={200}
            placeholder="Exact version"
            onChange={(e) => setOsText(e.target.value)}
            onBlur={() => osText.trim() !== state.os && setFilter({ os: osText.trim() })}
            onKeyDown={(e) => e.key === "Enter" && setFilter({ os: osText.trim() })}
          />
        </div>
        <FilterSelect
          id="filter-seen"
          label="Last check-in"
          value={state.seen}
          onChange={(v) => setFilter({ seen: v as DevicesFilterState["seen"] })}
        >
          <option value="">Any time</option>
          {Object.entries(SEEN_LABELS).map(([k, label]) => <option key={k} value={k}>{label}</option>)}
        </FilterSelect>
        <FilterSelect
          id="filter-update"
          label="Update"
          value={state.update}
          onChange={(v) => setFilter({ update: v as DevicesFilterState["update"] })}
        >
          <option value="">Any state</option>
          {Object.entries(UPDATE_LABELS).map(([k, label]) => <option key={k} value={k}>{label}</option>)}
        </FilterSelect>
        {tokenMode && (
          <div className="filter-field">
            <span className="filter-label" aria-hidden="true">Admission</span>
            <AdmissionFilter
              value={state.admission || undefined}
              pending={pending}
              onChange={(next) => setFilter({ admission: next ?? "" })}
            />
          </div>
        )}
        {filtered && (
          <Button
            label="Clear filters"
            icon="pi pi-filter-slash"
            text
            size="small"
            onClick={() => {
              setText("");
              go({ ...state, ...NO_FILTER, page: 0 });
            }}
          />
        )}
      </div>
      {selected > 0 && (
        <div className="selection-bar" role="status">
          <span>
            {selection.kind === "matching"
              ? `All ${selection.exact === false ? "(at least) " : ""}${selected} matching devices selected.`
              : `${selected} selected`}
          </span>
          {selection.kind === "ids" && total > selected && allOnPage && (
            <Button
              label={`Select all ${exact ? "" : "(at least) "}${total} matching`}
              link
              size="small"
              onClick={() => setSelection({ kind: "matching", filter: { ...state }, total, exact })}
            />
          )}
          <Button label="Change selected…" icon="pi pi-pencil" size="small" onClick={() => setBulkOpen(true)} />
          {tokenMode && selection.kind === "ids" && (
            <>
              <Button
                label="Accept selected"
                icon="pi pi-check"
                size="small"
                outlined
                disabled={admission.busy}
                onClick={() => admission.ask("accept", [...selection.ids])}
              />
              <Button
                label="Reject selected"
                icon="pi pi-ban"
                size="small"
                severity="danger"
                outlined
                disabled={admission.busy}
                onClick={() => admission.ask("reject", [...selection.ids])}
              />
            </>
          )}
          <Button label="Clear selection" text size="small" onClick={() => setSelection(NO_SELECTION)} />
        </div>
      )}
      <LoadState
        fetching={devices.isFetching || productTypes.isFetching}
        error={failed}
        onRetry={() => {
          if (devices.isError) void devices.refetch();
          if (productTypes.isError) void productTypes.refetch();
        }}
      />
      {/* A failed load shows only the error: no rows, no empty text and no paginator that could be stale. */}
      {!failed && (
        <div className="clickable-rows devices-table p-datatable p-component p-datatable-responsive-scroll p-datatable-striped p-datatable-sm">
          <div className="p-datatable-wrapper">
            <table
              className={`p-datatable-table${devices.isPlaceholderData ? " stale-rows" : ""}`}
              aria-label="Devices"
              aria-busy={devices.isPending || devices.isPlaceholderData}
              style={{ tableLayout: "fixed", minWidth: `${10 + shownColumns.length * 9}rem` }}
            >
              <colgroup>
                <col style={{ width: "3rem" }} />
                {shownColumns.map((c) => <col key={c.id} style={c.width ? { width: c.width } : undefined} />)}
              </colgroup>
              <thead className="p-datatable-thead">
                <tr>
                  <th scope="col" className="select-cell">
                    <input
                      type="checkbox"
                      aria-label="Select all devices on this page"
                      checked={allOnPage}
                      disabled={rows.length === 0}
                      onChange={(e) => togglePage(e.target.checked)}
                    />
                  </th>
                  {shownColumns.map((c) => (
                    <th key={c.id} scope="col" aria-sort={ariaSort(c)}>
                      <div className="p-column-header-content">
                        {c.sort
                          ? (
                            <button
                              type="button"
                              className="sort-button"
                              onClick={() => sortBy(c.sort!)}
                            >
                              <span className="p-column-title">{c.header}</span>
                              <i
                                aria-hidden="true"
                                className={`pi ${
                                  state.sort !== c.sort
                                    ? "pi-sort-alt"
                                    : state.order === "asc"
                                    ? "pi-sort-amount-up-alt"
                                    : "pi-sort-amount-down"
                                }`}
                              />
                            </button>
                          )
                          : <span className="p-column-title">{c.header}</span>}
                      </div>
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody className="p-datatable-tbody">
                {devices.isPending
                  // Skeleton rows of the page's size hold the table's height: the paginator does not move.
                  ? Array.from(
                    { length: state.size },
                    (_, i) => (
                      <tr key={i} className={i % 2 ? "p-row-odd" : undefined}>
                        <td />
                        {shownColumns.map((c, j) => (
                          <td key={c.id}>
                            <Skeleton width={skeletonWidth(i, j)} />
                          </td>
                        ))}
                      </tr>
                    ),
                  )
                  : rows.length === 0
                  ? (
                    <tr className="p-datatable-emptymessage">
                      <td colSpan={shownColumns.length + 1}>No devices found.</td>
                    </tr>
                  )
                  : rows.map((d, i) => (
                    // The Device ID link is the keyboard's way in; the whole row answers the mouse.
                    <tr
                      key={d.deviceId}
                      className={(state.page * state.size + i) % 2 ? "p-row-odd" : undefined}
                      aria-selected={isPicked(d.deviceId)}
                      onClick={() => navigate(deviceHref(d.deviceId))}
                    >
                      <td className="select-cell" onClick={(e) => e.stopPropagation()}>
                        <input
                          type="checkbox"
                          aria-label={`Select ${d.deviceId}`}
                          checked={isPicked(d.deviceId)}
                          onChange={(e) => toggle(d.deviceId, e.target.checked)}
                        />
                      </td>
                      {shownColumns.map((c) => (
                        <td key={c.id} className={c.nowrap ? "nowrap ellipsis" : undefined}>
                          {c.body(d, names)}
                        </td>
                      ))}
                    </tr>
                  ))}
              </tbody>
            </table>
          </div>
          {
            /* Mounted from the start, hidden until the first page is in: it holds its place (no shift), and its
              dropdown is built while the page loads, not in the same task as the rows. */
          }
          <div className={devices.data ? undefined : "paginator-pending"} aria-hidden={!devices.data || undefined}>
            <TablePaginator
              page={state.page}
              rows={state.size}
              totalRecords={total}
              rowsPerPageOptions={PAGE_SIZES}
              // Changing the page size resets to page 0.
              onPageChange={(e) =>
                go(e.rows !== state.size ? { ...state, size: e.rows, page: 0 } : { ...state, page: e.page })}
            />
          </div>
        </div>
      )}
      {admission.dialog}
      {bulkOpen && (
        <Suspense fallback={null}>
          <BulkDialog
            selection={selection}
            onDone={(changed) => {
              setBulkOpen(false);
              if (changed) setSelection(NO_SELECTION);
            }}
          />
        </Suspense>
      )}
    </section>
  );
}
