import { useQuery } from "@tanstack/react-query";
import { IconField } from "primereact/iconfield";
import { InputIcon } from "primereact/inputicon";
import { InputText } from "primereact/inputtext";
import { type ReactNode, useEffect, useMemo, useState } from "react";
import { Link, useLocation, useSearch } from "wouter";
import type { Device } from "../../../../shared/schemas/mod.ts";
import { PAGE_SIZES } from "../../../../shared/schemas/device.ts";
import { Skeleton, skeletonWidth } from "../../components/Skeleton.tsx";
import { LoadState } from "../../components/LoadState.tsx";
import { TablePaginator } from "../../components/TablePaginator.tsx";
import { formatDateTime } from "../../lib/format.ts";
import { productTypesQuery } from "../product_types/api.ts";
import { devicesQuery } from "./api.ts";
import { devicesUrlQuery, type DevicesUrlState, readDevicesUrl } from "./urlState.ts";
import { AdmissionCell, AdmissionFilter, SelectionBar, useAdmissionActions, useTokenMode } from "./Admission.tsx";

export const deviceHref = (id: string) => `/devices/${encodeURIComponent(id)}`;
const countOrDash = (n: number) => (n > 0 ? String(n) : "-");

interface DeviceColumn {
  header: string;
  nowrap?: boolean;
  /** Fixed width (the table's layout is fixed: skeleton rows and data rows share the column widths). */
  width?: string;
  body: (d: Device, typeNames: Map<string, string>) => ReactNode;
}

/** The devices list columns, in order. */
const COLUMNS: DeviceColumn[] = [
  {
    header: "Device ID",
    nowrap: true,
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
    header: "Product Type",
    width: "11rem",
    body: (d, names) => (d.productTypeId ? names.get(d.productTypeId) ?? "-" : "-"),
  },
  {
    header: "Custom firmware",
    width: "7rem",
    body: (d) =>
      d.firmware
        ? (
          <i
            className="pi pi-exclamation-triangle warning-mark"
            role="img"
            aria-label="Custom firmware set"
            title="Custom firmware set"
          />
        )
        : null,
  },
  { header: "Additional Modules", width: "7.5rem", body: (d) => countOrDash(d.moduleIds.length) },
  { header: "Additional Treatments", width: "8rem", body: (d) => countOrDash(d.additionalTreatmentIds.length) },
  { header: "Last login", nowrap: true, width: "14rem", body: (d) => formatDateTime(d.lastLoggedIn) },
  { header: "Updated", nowrap: true, width: "14rem", body: (d) => formatDateTime(d.updatedAt) },
];

/**
 * Devices list: server-paged table; page, size and search live in the URL query. A plain <table> on
 * PrimeReact's DataTable classes (same look) instead of DataTable itself, which alone weighs 150 KB minified.
 */
export default function DevicesScreen() {
  const search = useSearch();
  const [, navigate] = useLocation();
  const state = useMemo(() => readDevicesUrl(new URLSearchParams(search)), [search]);
  // Every change is a history entry, so Back undoes a page, size or search change.
  const go = (next: DevicesUrlState) => navigate(`/devices${devicesUrlQuery(next)}`);

  // The search box follows the URL (back/forward) and writes to it after a short pause.
  const [text, setText] = useState(state.q);
  useEffect(() => setText((t) => (t.trim() === state.q ? t : state.q)), [state.q]);
  useEffect(() => {
    const trimmed = text.trim();
    if (trimmed === state.q) return;
    const timer = setTimeout(() => go({ ...state, q: trimmed, page: 0 }), 400);
    return () => clearTimeout(timer);
  }, [text]);

  const devices = useQuery(
    devicesQuery({ page: state.page, rowsPerPage: state.size, q: state.q, admission: state.admission }),
  );
  // CONTRACT §11 (DEVICE_AUTH=token only): the admission filter, a selection column and an admission column.
  const { tokenMode, pending } = useTokenMode();
  const [selected, setSelected] = useState<string[]>([]);
  const admission = useAdmissionActions(() => setSelected([]));
  const columns = useMemo<DeviceColumn[]>(() =>
    tokenMode
      ? [
        {
          header: "Select",
          width: "4.5rem",
          body: (d) => (
            <span className="select-cell" onClick={(e) => e.stopPropagation()}>
              <input
                type="checkbox"
                aria-label={`Select ${d.deviceId}`}
                checked={selected.includes(d.deviceId)}
                onChange={(e) =>
                  setSelected((s) => e.target.checked ? [...s, d.deviceId] : s.filter((id) => id !== d.deviceId))}
              />
            </span>
          ),
        },
        ...COLUMNS,
        {
          header: "Admission",
          width: "11.5rem",
          body: (d) => <AdmissionCell device={d} ask={admission.ask} busy={admission.busy} />,
        },
      ]
      : COLUMNS, [tokenMode, selected, admission.ask, admission.busy]);
  const productTypes = useQuery(productTypesQuery());
  const typeNames = useMemo(
    () => new Map((productTypes.data ?? []).map((t) => [t._id, t.name])),
    [productTypes.data],
  );
  const failed = devices.error ?? productTypes.error;
  const total = devices.data?.total ?? 0;
  const rows = devices.data?.data ?? [];

  // A page beyond the end (an old link, devices removed since) moves to the last page.
  const lastPage = Math.max(0, Math.ceil(total / state.size) - 1);
  useEffect(() => {
    if (devices.data && !devices.isPlaceholderData && state.page > lastPage) {
      navigate(`/devices${devicesUrlQuery({ ...state, page: lastPage })}`, { replace: true });
    }
  }, [devices.data, devices.isPlaceholderData, state.page, lastPage]);

  return (
    <section>
      <div className="page-header">
        <div>
          <h1>Devices</h1>
          <div className="page-sub">
            {devices.data && !failed ? `${total} device${total === 1 ? "" : "s"}` : "\u00a0"}
          </div>
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
            style={{ width: "20rem" }}
          />
        </IconField>
        {tokenMode && (
          <AdmissionFilter
            value={state.admission}
            pending={pending}
            onChange={(next) => go({ ...state, admission: next, page: 0 })}
          />
        )}
      </div>
      {tokenMode && (
        <SelectionBar
          selected={selected}
          ask={admission.ask}
          busy={admission.busy}
          onClear={() => setSelected([])}
        />
      )}
      {admission.dialog}
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
        <div className="clickable-rows p-datatable p-component p-datatable-responsive-scroll p-datatable-striped p-datatable-sm">
          <div className="p-datatable-wrapper">
            <table
              className={`p-datatable-table${devices.isPlaceholderData ? " stale-rows" : ""}`}
              aria-label="Devices"
              aria-busy={devices.isPending || devices.isPlaceholderData}
              style={{ tableLayout: "fixed", minWidth: tokenMode ? "90rem" : "74rem" }}
            >
              <colgroup>
                {columns.map((c) => <col key={c.header} style={c.width ? { width: c.width } : undefined} />)}
              </colgroup>
              <thead className="p-datatable-thead">
                <tr>
                  {columns.map((c) => (
                    <th key={c.header} scope="col">
                      <div className="p-column-header-content">
                        <span className="p-column-title">{c.header}</span>
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
                        {columns.map((c, j) => (
                          <td key={c.header}>
                            <Skeleton width={skeletonWidth(i, j)} />
                          </td>
                        ))}
                      </tr>
                    ),
                  )
                  : rows.length === 0
                  ? (
                    <tr className="p-datatable-emptymessage">
                      <td colSpan={columns.length}>No devices found.</td>
                    </tr>
                  )
                  : rows.map((d, i) => (
                    // The Device ID link is the keyboard's way in; the whole row answers the mouse.
                    <tr
                      key={d.deviceId}
                      className={(state.page * state.size + i) % 2 ? "p-row-odd" : undefined}
                      onClick={() => navigate(deviceHref(d.deviceId))}
                    >
                      {columns.map((c) => (
                        <td key={c.header} className={c.nowrap ? "nowrap ellipsis" : undefined}>
                          {c.body(d, typeNames)}
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
    </section>
  );
}
