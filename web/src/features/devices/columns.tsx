import type { ReactNode } from "react";
import { Link } from "wouter";
import type { Device, DeviceSort } from "../../../../shared/schemas/mod.ts";
import { formatDateTime } from "../../lib/format.ts";

export const deviceHref = (id: string) => `/devices/${encodeURIComponent(id)}`;
const countOrDash = (n: number) => (n > 0 ? String(n) : "-");

export interface Names {
  types: Map<string, string>;
  firmwares: Map<string, string>;
}

export interface DeviceColumn {
  id: string;
  header: string;
  /** The server's sort key, when the column sorts. */
  sort?: DeviceSort;
  nowrap?: boolean;
  /** Fixed width (the table's layout is fixed: skeleton rows and data rows share the column widths). */
  width?: string;
  body: (d: Device, names: Names) => ReactNode;
}

/** Every column the list can show; the specification's seven are the default. */
export const COLUMNS: DeviceColumn[] = [
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
export const DEFAULT_COLUMNS = COLUMNS.slice(0, 7).map((c) => c.id);
