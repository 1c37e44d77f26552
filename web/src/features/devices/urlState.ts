import {
  type Admission,
  ADMISSIONS,
  DEFAULT_PAGE_SIZE,
  DEVICE_SEEN,
  DEVICE_SORTS,
  DEVICE_UPDATE_FILTERS,
  type DeviceSeen,
  type DeviceSort,
  type DeviceUpdateFilter,
  PAGE_SIZES,
} from "../../../../shared/schemas/device.ts";

/** The filters of a fleet view (docs/REQUIREMENTS.md §16) as the URL keeps them; "" = not filtered. */
export interface DevicesFilterState {
  q: string;
  productTypeId: string;
  firmware: string;
  app: string;
  os: string;
  seen: DeviceSeen | "";
  /** docs/REQUIREMENTS.md §11 (DEVICE_AUTH=token): only devices of this admission state. */
  admission: Admission | "";
  /** docs/REQUIREMENTS.md §13: the state of the latest update report, or `none`. */
  update: DeviceUpdateFilter | "";
}

export interface DevicesUrlState extends DevicesFilterState {
  page: number;
  size: number;
  sort: DeviceSort;
  order: "asc" | "desc";
}

export const NO_FILTER: DevicesFilterState = {
  q: "",
  productTypeId: "",
  firmware: "",
  app: "",
  os: "",
  seen: "",
  admission: "",
  update: "",
};
export const FILTER_KEYS = ["productTypeId", "firmware", "app", "os", "seen", "admission", "update"] as const;

const text = (v: string | null, max: number) => (v ?? "").slice(0, max);

/** Reads the view from the URL query; anything unreadable falls back to the default. */
export function readDevicesUrl(params: URLSearchParams): DevicesUrlState {
  const page = Number(params.get("page"));
  const size = Number(params.get("size"));
  const sort = params.get("sort") as DeviceSort;
  const seen = params.get("seen") as DeviceSeen;
  const admission = params.get("admission") as Admission;
  const update = params.get("update") as DeviceUpdateFilter;
  return {
    page: Number.isInteger(page) && page >= 0 && page <= 1_000_000_000 ? page : 0,
    size: (PAGE_SIZES as readonly number[]).includes(size) ? size : DEFAULT_PAGE_SIZE,
    q: text(params.get("q"), 128),
    sort: DEVICE_SORTS.includes(sort) ? sort : "deviceId",
    order: params.get("order") === "desc" ? "desc" : "asc",
    productTypeId: text(params.get("productTypeId"), 128),
    firmware: text(params.get("firmware"), 128),
    app: text(params.get("app"), 200),
    os: text(params.get("os"), 200),
    seen: DEVICE_SEEN.includes(seen) ? seen : "",
    admission: ADMISSIONS.includes(admission) ? admission : "",
    update: DEVICE_UPDATE_FILTERS.includes(update) ? update : "",
  };
}

/** The URL query for a view; defaults are left out so the plain /devices stays plain. */
export function devicesUrlQuery(s: DevicesUrlState): string {
  const params = new URLSearchParams();
  if (s.q) params.set("q", s.q);
  for (const key of FILTER_KEYS) if (s[key]) params.set(key, s[key]);
  if (s.sort !== "deviceId") params.set("sort", s.sort);
  if (s.order !== "asc") params.set("order", s.order);
  if (s.page) params.set("page", String(s.page));
  if (s.size !== DEFAULT_PAGE_SIZE) params.set("size", String(s.size));
  const qs = params.toString();
  return qs ? `?${qs}` : "";
}

/** A link to the devices list filtered so (refusals and overview slices link to the devices they count). */
export function devicesHref(filter: Partial<DevicesFilterState>): string {
  return `/devices${
    devicesUrlQuery({
      ...NO_FILTER,
      ...filter,
      page: 0,
      size: DEFAULT_PAGE_SIZE,
      sort: "deviceId",
      order: "asc",
    })
  }`;
}

/** The filter members the API takes (empty ones left out). */
export function apiFilter(s: DevicesFilterState) {
  const out: Record<string, string> = {};
  for (const key of ["q", ...FILTER_KEYS] as const) if (s[key]) out[key] = s[key];
  return out as {
    q?: string;
    productTypeId?: string;
    firmware?: string;
    app?: string;
    os?: string;
    seen?: DeviceSeen;
    admission?: Admission;
    update?: DeviceUpdateFilter;
  };
}

/** GET devices' query for one page of a view: the list asks with it, and so does the start-up prefetch. */
export function devicesRequest(
  params: Partial<DevicesFilterState> & {
    page: number;
    rowsPerPage: number;
    sort?: DeviceSort;
    order?: "asc" | "desc";
  },
) {
  const { page, rowsPerPage, sort = "deviceId", order = "asc" } = params;
  return { page, rowsPerPage, sort, order, ...apiFilter({ ...NO_FILTER, ...params }) };
}
