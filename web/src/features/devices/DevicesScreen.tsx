import { useQuery } from "@tanstack/react-query";
import { useAtom } from "jotai";
import { lazy, Suspense, useDeferredValue, useEffect, useMemo, useState } from "react";
import { useLocation, useSearch } from "wouter";
import type { DeviceSort } from "../../../../shared/schemas/mod.ts";
import { PAGE_SIZES } from "../../../../shared/schemas/device.ts";
import { LiteButton } from "../../components/LiteButton.tsx";
import { LoadState } from "../../components/LoadState.tsx";
import { TablePaginator } from "../../components/TablePaginator.tsx";
import { useNotifyError } from "../../lib/notify.ts";
import { useRole } from "../../lib/role.ts";
import { useSession } from "../../lib/session.ts";
import { useStableCallback } from "../../lib/useStableCallback.ts";
import { firmwaresQuery } from "../firmwares/api.ts";
import { productTypesQuery } from "../product_types/api.ts";
import { AdmissionCell, useAdmissionActions, useTokenMode } from "./Admission.tsx";
import { devicesQuery, downloadDevicesCsv, overviewQuery } from "./api.ts";
import { ColumnChooser } from "./ColumnChooser.tsx";
import { COLUMNS, DEFAULT_COLUMNS, type DeviceColumn, deviceHref, type Names } from "./columns.tsx";
import { DevicesFilters } from "./DevicesFilters.tsx";
import { DevicesTable } from "./DevicesTable.tsx";
import { useColumnChoice } from "./columnChoice.ts";
import { SavedViewsSlot } from "./SavedViewsSlot.tsx";
import { deviceCount, deviceSelectionAtom, NO_SELECTION, selectionSize } from "./selection.ts";
import {
  type DevicesFilterState,
  devicesUrlQuery,
  type DevicesUrlState,
  FILTER_KEYS,
  NO_FILTER,
  readDevicesUrl,
} from "./urlState.ts";

export { deviceHref } from "./columns.tsx";

const BulkDialog = lazy(() => import("./BulkDialog.tsx"));

/**
 * Devices list: server-paged, sorted and filtered table; the whole view (page, size, search, filters, sort) lives in
 * the URL, so it can be bookmarked and shared.
 */
export default function DevicesScreen() {
  const search = useSearch();
  const [, navigate] = useLocation();
  const { identity } = useSession();
  const { canWrite } = useRole();
  const notifyError = useNotifyError();
  const state = useMemo(() => readDevicesUrl(new URLSearchParams(search)), [search]);
  // Every change is a history entry, so Back undoes a page, size, search, filter or sort change.
  const go = (next: DevicesUrlState) => navigate(`/devices${devicesUrlQuery(next)}`);
  const setFilter = useStableCallback((change: Partial<DevicesFilterState>) => go({ ...state, ...change, page: 0 }));
  const viewQuery = devicesUrlQuery({ ...state, page: 0, size: 25 });

  const [columnIds, chooseColumns] = useColumnChoice(identity, DEFAULT_COLUMNS);

  // The search box follows the URL (back/forward) and writes to it after a short pause.
  const [text, setText] = useState(state.q);
  useEffect(() => setText((t) => (t.trim() === state.q ? t : state.q)), [state.q]);
  useEffect(() => {
    const trimmed = text.trim();
    if (trimmed === state.q) return;
    const timer = setTimeout(() => go({ ...state, q: trimmed, page: 0 }), 400);
    return () => clearTimeout(timer);
  }, [text]);

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
  // The table (memoized) renders what arrives in the background, in slices, not in the update that brought it:
  // typing and clicking stay responsive, and a phone's main thread is never blocked for long.
  const shown = useDeferredValue(devices.data);
  const shownNames = useDeferredValue(names);
  const shownStale = useDeferredValue(devices.isPlaceholderData);
  // The first render paints the heading and the toolbar; the filters and the table follow in a second, background
  // render: two short tasks on a phone instead of one long one (they come below, so nothing moves).
  const full = useDeferredValue(true, false);
  // The filters' options too: an answer arriving re-renders this screen at once (a query's update is synchronous);
  // the memoized filters then render with the new options in a background render, in slices.
  const filterTypes = useDeferredValue(productTypes.data);
  const filterFirmwares = useDeferredValue(firmwares.data);
  const filterApps = useDeferredValue(overview.data?.apps);
  const filterState: DevicesFilterState = useMemo(() => ({ ...NO_FILTER, ...state }), [state]);
  const filterKey = JSON.stringify([state.q, ...FILTER_KEYS.map((k) => state[k])]);
  const filtered = filterKey !== JSON.stringify(["", ...FILTER_KEYS.map(() => "")]);

  // The selection: devices picked on any page, or "all N matching"; a new filter starts a new one.
  const [selection, setSelection] = useAtom(deviceSelectionAtom);
  useEffect(() => setSelection(NO_SELECTION), [filterKey]);
  const pageIds = (devices.data?.data ?? []).map((d) => d.deviceId);
  const allOnPage = pageIds.length > 0 &&
    (selection.kind === "matching" || pageIds.every((id) => selection.ids.includes(id)));
  const toggle = useStableCallback((id: string, on: boolean) => {
    const ids = selection.kind === "ids" ? selection.ids : pageIds;
    setSelection({ kind: "ids", ids: on ? [...new Set([...ids, id])] : ids.filter((x) => x !== id) });
  });
  const togglePage = useStableCallback((on: boolean, ids: string[]) => {
    const kept = selection.kind === "ids" ? selection.ids : [];
    setSelection({
      kind: "ids",
      ids: on ? [...new Set([...kept, ...ids])] : kept.filter((x) => !ids.includes(x)),
    });
  });
  const selected = selectionSize(selection);
  // docs/REQUIREMENTS.md §11 (DEVICE_AUTH=token only): the admission filter with the pending count, an admission column, and
  // accept/reject for the picked rows.
  const { tokenMode, pending } = useTokenMode();
  const filterTokenMode = useDeferredValue(tokenMode);
  const filterPending = useDeferredValue(pending);
  const admission = useAdmissionActions(() => setSelection(NO_SELECTION));
  const ask = useStableCallback(admission.ask);
  const columns: DeviceColumn[] = useMemo(() => {
    const chosen = COLUMNS.filter((c) => columnIds.includes(c.id) || c.id === "deviceId");
    if (!tokenMode) return chosen;
    // Right after the device id: the labelled Accept / Reject stay in view without scrolling sideways.
    const [id, ...rest] = chosen;
    return [id, {
      id: "admission",
      header: "Admission",
      width: "16rem",
      body: (d) => <AdmissionCell device={d} ask={ask} busy={admission.busy} />,
    }, ...rest];
  }, [columnIds, tokenMode, admission.busy]);
  const [bulkOpen, setBulkOpen] = useState(false);
  const [filtersOpen, setFiltersOpen] = useState(false);
  const filterCount = FILTER_KEYS.filter((k) => state[k]).length;
  const [exporting, setExporting] = useState(false);

  // A page beyond the end (an old link, devices removed since) moves to the last page.
  const lastPage = Math.max(0, Math.ceil(total / state.size) - 1);
  useEffect(() => {
    if (devices.data && !devices.isPlaceholderData && state.page > lastPage) {
      navigate(`/devices${devicesUrlQuery({ ...state, page: lastPage })}`, { replace: true });
    }
  }, [devices.data, devices.isPlaceholderData, state.page, lastPage]);

  const sortBy = useStableCallback((key: DeviceSort) =>
    go({ ...state, sort: key, order: state.sort === key && state.order === "asc" ? "desc" : "asc", page: 0 })
  );
  const open = useStableCallback((id: string) => navigate(deviceHref(id)));
  const clearFilters = useStableCallback(() => {
    setText("");
    go({ ...state, ...NO_FILTER, page: 0 });
  });

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
          <LiteButton
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
        <div className="p-icon-field p-icon-field-left">
          <span className="p-input-icon pi pi-search" aria-hidden="true" />
          <input
            id="device-search"
            type="search"
            className={`p-inputtext p-component${text ? " p-filled" : ""}`}
            placeholder="Search on device ID"
            value={text}
            maxLength={128}
            onChange={(e) => setText(e.target.value)}
            style={{ width: "20rem", maxWidth: "100%" }}
          />
        </div>
        <SavedViewsSlot who={identity} current={viewQuery} onOpen={(q) => navigate(`/devices${q}`)} />
        <ColumnChooser shown={columnIds} onChange={chooseColumns} />
        {/* On a narrow screen the filters fold behind this button (styles.css), which says how many are set. */}
        <LiteButton
          className="filters-toggle"
          label={`Filters (${filterCount})`}
          icon="pi pi-filter"
          outlined
          size="small"
          aria-expanded={filtersOpen}
          aria-controls="devices-filters"
          onClick={() => setFiltersOpen((o) => !o)}
        />
      </div>
      {full && (
        <div id="devices-filters" className={filtersOpen ? "filters-fold open" : "filters-fold"}>
          <DevicesFilters
            filter={filterState}
            filtered={filtered}
            productTypes={filterTypes}
            firmwares={filterFirmwares}
            apps={filterApps}
            tokenMode={filterTokenMode}
            pending={filterPending}
            onChange={setFilter}
            onClear={clearFilters}
          />
        </div>
      )}
      {selected > 0 && (
        <div className="selection-bar" role="status">
          <span>
            {selection.kind === "matching"
              ? `All ${selection.exact === false ? "(at least) " : ""}${selected} matching devices selected.`
              : `${selected} selected`}
          </span>
          {selection.kind === "ids" && total > selected && allOnPage && (
            <LiteButton
              label={`Select all ${exact ? "" : "(at least) "}${total} matching`}
              link
              size="small"
              onClick={() => setSelection({ kind: "matching", filter: { ...state }, total, exact })}
            />
          )}
          {/* A viewer selects (to export, to look) but changes nothing: the bulk change is off, the page's note says why. */}
          <LiteButton
            label="Change selected…"
            icon="pi pi-pencil"
            size="small"
            disabled={!canWrite}
            aria-describedby={canWrite ? undefined : "role-note"}
            onClick={() => setBulkOpen(true)}
          />
          {tokenMode && selection.kind === "ids" && (
            <>
              <LiteButton
                label="Accept selected"
                icon="pi pi-check"
                size="small"
                outlined
                disabled={admission.busy}
                onClick={() => admission.ask("accept", [...selection.ids])}
              />
              <LiteButton
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
          <LiteButton label="Clear selection" text size="small" onClick={() => setSelection(NO_SELECTION)} />
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
      {!failed && full && (
        <div className="clickable-rows devices-table p-datatable p-component p-datatable-responsive-scroll p-datatable-striped p-datatable-sm">
          <DevicesTable
            rows={shown?.data}
            stale={shownStale}
            columns={columns}
            names={shownNames}
            offset={state.page * state.size}
            size={state.size}
            sort={state.sort}
            order={state.order}
            selection={selection}
            onSort={sortBy}
            onToggle={toggle}
            onTogglePage={togglePage}
            onOpen={open}
          />
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
