import { type Admission, ADMISSIONS, DEFAULT_PAGE_SIZE, PAGE_SIZES } from "../../../../shared/schemas/device.ts";

export interface DevicesUrlState {
  page: number;
  size: number;
  q: string;
  /** The admission filter (CONTRACT §11); absent: every device. */
  admission?: Admission;
}

/** Reads page, size and search from the URL query; anything unreadable falls back to the default. */
export function readDevicesUrl(params: URLSearchParams): DevicesUrlState {
  const page = Number(params.get("page"));
  const size = Number(params.get("size"));
  return {
    page: Number.isInteger(page) && page >= 0 && page <= 1_000_000_000 ? page : 0,
    size: (PAGE_SIZES as readonly number[]).includes(size) ? size : DEFAULT_PAGE_SIZE,
    q: (params.get("q") ?? "").slice(0, 128),
    ...admissionOf(params.get("admission")),
  };
}

/** The URL query for a state; defaults are left out so the plain /devices stays plain. */
export function devicesUrlQuery(s: DevicesUrlState): string {
  const params = new URLSearchParams();
  if (s.q) params.set("q", s.q);
  if (s.admission) params.set("admission", s.admission);
  if (s.page) params.set("page", String(s.page));
  if (s.size !== DEFAULT_PAGE_SIZE) params.set("size", String(s.size));
  const qs = params.toString();
  return qs ? `?${qs}` : "";
}

function admissionOf(value: string | null): { admission?: Admission } {
  return (ADMISSIONS as readonly string[]).includes(value ?? "") ? { admission: value as Admission } : {};
}
