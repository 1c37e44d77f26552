import { useQuery } from "@tanstack/react-query";
import { Column } from "primereact/column";
import { DataTable } from "primereact/datatable";
import { IconField } from "primereact/iconfield";
import { InputIcon } from "primereact/inputicon";
import { InputText } from "primereact/inputtext";
import { useEffect, useMemo, useState } from "react";
import { Link, useLocation, useSearch } from "wouter";
import type { Device } from "../../../../shared/schemas/mod.ts";
import { PAGE_SIZES } from "../../../../shared/schemas/device.ts";
import { LoadState } from "../../components/LoadState.tsx";
import { formatDateTime } from "../../lib/format.ts";
import { productTypesQuery } from "../product_types/api.ts";
import { devicesQuery } from "./api.ts";
import { devicesUrlQuery, type DevicesUrlState, readDevicesUrl } from "./urlState.ts";

export const deviceHref = (id: string) => `/devices/${encodeURIComponent(id)}`;
const countOrDash = (n: number) => (n > 0 ? String(n) : "-");

/** SPEC "Devices list": server-paged table; page, size and search live in the URL query. */
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

  const devices = useQuery(devicesQuery({ page: state.page, rowsPerPage: state.size, q: state.q }));
  const productTypes = useQuery(productTypesQuery());
  const typeNames = useMemo(
    () => new Map((productTypes.data ?? []).map((t) => [t._id, t.name])),
    [productTypes.data],
  );
  const total = devices.data?.total ?? 0;

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
          <div className="page-sub">{devices.data ? `${total} device${total === 1 ? "" : "s"}` : "\u00a0"}</div>
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
      </div>
      <LoadState
        fetching={devices.isFetching || productTypes.isFetching}
        error={devices.error ?? productTypes.error}
      />
      <DataTable
        className="clickable-rows"
        value={devices.data?.data ?? []}
        dataKey="deviceId"
        lazy
        paginator
        first={state.page * state.size}
        rows={state.size}
        totalRecords={total}
        rowsPerPageOptions={[...PAGE_SIZES]}
        paginatorTemplate="FirstPageLink PrevPageLink PageLinks NextPageLink LastPageLink RowsPerPageDropdown CurrentPageReport"
        currentPageReportTemplate="{first}-{last} of {totalRecords}"
        onPage={(e) =>
          // SPEC: changing the page size resets to page 0.
          go(e.rows !== state.size ? { ...state, size: e.rows, page: 0 } : { ...state, page: e.page ?? 0 })}
        onRowClick={(e) => navigate(deviceHref((e.data as Device).deviceId))}
        emptyMessage={devices.isPending ? " " : "No devices found."}
        stripedRows
        size="small"
        aria-label="Devices"
      >
        <Column
          header="Device ID"
          bodyClassName="nowrap"
          body={(d: Device) => (
            <Link
              href={deviceHref(d.deviceId)}
              className="cell-link"
              onClick={(e) => e.stopPropagation()}
            >
              {d.deviceId}
            </Link>
          )}
        />
        <Column
          header="Product Type"
          body={(d: Device) => (d.productTypeId ? typeNames.get(d.productTypeId) ?? "-" : "-")}
        />
        <Column
          header="Custom firmware"
          body={(d: Device) =>
            d.firmware
              ? (
                <i
                  className="pi pi-exclamation-triangle warning-mark"
                  role="img"
                  aria-label="Custom firmware set"
                  title="Custom firmware set"
                />
              )
              : null}
        />
        <Column header="Additional Modules" body={(d: Device) => countOrDash(d.moduleIds.length)} />
        <Column header="Additional Treatments" body={(d: Device) => countOrDash(d.additionalTreatmentIds.length)} />
        <Column header="Last login" bodyClassName="nowrap" body={(d: Device) => formatDateTime(d.lastLoggedIn)} />
        <Column header="Updated" bodyClassName="nowrap" body={(d: Device) => formatDateTime(d.updatedAt)} />
      </DataTable>
    </section>
  );
}
