import * as z from "zod";
import { Etag, hasControlChars, Id, Timestamp, uniqueIds } from "./common.ts";
import { DeviceAttributes } from "./ddi.ts";

/** Device ids are chosen by the devices themselves: printable, URL- and file-safe. */
export const DeviceId = z.string().regex(
  /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/,
  "must be 1-128 characters of letters, digits, '.', '_', ':' or '-'",
);
export type DeviceId = z.infer<typeof DeviceId>;

export const VersionInfo = z.strictObject({
  app: z.string().max(200).nullable(),
  os: z.string().max(200).nullable(),
  channels: z.array(z.string().max(200)).max(64),
});
export type VersionInfo = z.infer<typeof VersionInfo>;

/** docs/REQUIREMENTS.md §11: where a device stands with the console (always "accepted" with DEVICE_AUTH=shared). */
export const ADMISSIONS = ["pending", "accepted", "rejected"] as const;
export const Admission = z.enum(ADMISSIONS, { message: "must be pending, accepted or rejected" });
export type Admission = z.infer<typeof Admission>;
export const UPDATE_STATES = ["downloading", "installing", "installed", "failed"] as const;
export const UpdateState = z.enum(UPDATE_STATES);
export type UpdateState = z.infer<typeof UpdateState>;
/** The devices list's `update` filter: a report state, or `none` for devices that never reported. */
export const DEVICE_UPDATE_FILTERS = [...UPDATE_STATES, "none"] as const;
export type DeviceUpdateFilter = (typeof DEVICE_UPDATE_FILTERS)[number];

/** A device's latest report (Device.update). */
export const DeviceUpdate = z.object({
  firmwareId: Id,
  state: UpdateState,
  progress: z.number().int().nullable(),
  message: z.string().nullable(),
  at: Timestamp,
});
export type DeviceUpdate = z.infer<typeof DeviceUpdate>;

export const Device = z.object({
  deviceId: DeviceId,
  productTypeId: Id.nullable(),
  moduleIds: z.array(Id),
  additionalTreatmentIds: z.array(Id),
  firmware: Id.nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  lastLoggedIn: Timestamp.nullable(),
  versionInfo: VersionInfo.nullable(),
  /** The device's latest update report (docs/REQUIREMENTS.md §13), null before its first. */
  update: DeviceUpdate.nullable(),
  etag: Etag,
  /** docs/REQUIREMENTS.md §11 (DEVICE_AUTH=token): pending, accepted or rejected; "accepted" with DEVICE_AUTH=shared. */
  admission: Admission,
  /** When the device's current token was issued; null while it holds none (always null with DEVICE_AUTH=shared). */
  credentialsIssuedAt: Timestamp.nullable(),
  /** What the device reported through hawkBit DDI's configData (docs/REQUIREMENTS.md §18); null before its first. */
  attributes: DeviceAttributes.nullable(),
});
export type Device = z.infer<typeof Device>;

export const PAGE_SIZES = [10, 25, 50, 100] as const;
export const DEFAULT_PAGE_SIZE = 25;

export const DeviceList = z.object({
  data: z.array(Device),
  /**
   * How many devices match; a lower bound when `exact` is false (a combination of filters matching more than the page
   * and 250 more devices: docs/REQUIREMENTS.md §16's counts stay cheap). No filter, or one of productTypeId, firmware, app and
   * seen alone, is always exact.
   */
  total: z.number().int(),
  exact: z.boolean(),
  page: z.number().int(),
  per_page: z.number().int().optional(),
});
export type DeviceList = z.infer<typeof DeviceList>;

const intParam = (min: number, max: number) =>
  z.string().regex(/^\d{1,10}$/, "must be a whole number").transform(Number).pipe(
    z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`),
  );

const searchText = z.string().max(128, "is at most 128 characters").refine(
  (s) => !hasControlChars(s),
  "must not contain control characters",
);
const versionText = z.string().min(1, "must not be empty").max(200, "is at most 200 characters").refine(
  (s) => !hasControlChars(s),
  "must not contain control characters",
);

/** The sort keys of the devices list (docs/REQUIREMENTS.md §16); ties are broken by deviceId in the same direction. */
export const DEVICE_SORTS = ["deviceId", "productType", "lastLoggedIn", "updatedAt", "createdAt", "app"] as const;
export type DeviceSort = (typeof DEVICE_SORTS)[number];
export const DeviceSortOrder = z.enum(["asc", "desc"]);
export type DeviceSortOrder = z.infer<typeof DeviceSortOrder>;
/** Last check-in within 24 hours, within 7 days, more than 7 days ago (stale), or never. */
export const DEVICE_SEEN = ["24h", "7d", "stale", "never"] as const;
export type DeviceSeen = (typeof DEVICE_SEEN)[number];

/**
 * Which devices a fleet view shows (docs/REQUIREMENTS.md §16), all combinable: `productTypeId` an id or `none`; `firmware` the
 * firmware in effect: `custom` (a custom firmware is set), `default` (none is set: the device type's default applies)
 * or a firmware id; `app` and `os` exact versions; `seen` the last check-in.
 */
export const DeviceFilter = z.strictObject({
  q: searchText.optional(),
  productTypeId: Id.optional(),
  firmware: Id.optional(),
  app: versionText.optional(),
  os: versionText.optional(),
  seen: z.enum(DEVICE_SEEN).optional(),
  /** docs/REQUIREMENTS.md §11: only the devices of this admission state. */
  admission: Admission.optional(),
  /** docs/REQUIREMENTS.md §13: the state of the device's latest update report, or `none` (it never reported). */
  update: z.enum(DEVICE_UPDATE_FILTERS, {
    message: `must be one of ${DEVICE_UPDATE_FILTERS.join(", ")}`,
  }).optional(),
});
export type DeviceFilter = z.infer<typeof DeviceFilter>;

/** The members of DeviceFilter, in the order the console and the CLI show them. */
export const DEVICE_FILTER_KEYS = [
  "q",
  "productTypeId",
  "firmware",
  "app",
  "os",
  "seen",
  "admission",
  "update",
] as const;

export const DeviceListQuery = z.object({
  page: intParam(0, 1_000_000_000).default(0),
  rowsPerPage: intParam(1, 100).default(DEFAULT_PAGE_SIZE),
  sort: z.enum(DEVICE_SORTS).default("deviceId"),
  order: DeviceSortOrder.default("asc"),
  ...DeviceFilter.shape,
});
export type DeviceListQuery = z.input<typeof DeviceListQuery>;

/** GET devices.csv: the list's filters and sort, every matching device. */
export const DeviceCsvQuery = z.object({
  sort: z.enum(DEVICE_SORTS).default("deviceId"),
  order: DeviceSortOrder.default("asc"),
  ...DeviceFilter.shape,
});
export type DeviceCsvQuery = z.input<typeof DeviceCsvQuery>;

/** What a bulk change sets on every device (the rules of PATCH devices; a product type change clears modules). */
export const DeviceBulkSet = z.strictObject({
  productTypeId: Id.nullable().optional(),
  firmware: Id.nullable().optional(),
  additionalTreatmentIds: uniqueIds(10_000).optional(),
}).refine((s) => Object.keys(s).length > 0, "must set at least one of productTypeId, firmware, additionalTreatmentIds");
export type DeviceBulkSet = z.infer<typeof DeviceBulkSet>;

export const MAX_BULK_DEVICE_IDS = 10_000;

/** POST devices/bulk: exactly one of deviceIds or filter names the devices. */
export const DeviceBulk = z.strictObject({
  deviceIds: z.array(DeviceId).min(1, "must name at least one device").max(
    MAX_BULK_DEVICE_IDS,
    `has more than ${MAX_BULK_DEVICE_IDS} entries`,
  ).refine((ids) => new Set(ids).size === ids.length, "must not contain duplicates").nullable(),
  filter: DeviceFilter.nullable(),
  set: DeviceBulkSet,
}).refine((b) => (b.deviceIds === null) !== (b.filter === null), {
  message: "exactly one of deviceIds and filter must be given (the other null)",
  path: ["deviceIds"],
});
export type DeviceBulk = z.infer<typeof DeviceBulk>;

export const DeviceBulkResult = z.object({ updated: z.number().int() });
export type DeviceBulkResult = z.infer<typeof DeviceBulkResult>;

/** GET overview: fleet health from count queries (firmware in effect; `_id: null` for none). */
export const Overview = z.object({
  devices: z.object({
    total: z.number().int(),
    seen24h: z.number().int(),
    seen7d: z.number().int(),
    /** Last check-in more than 7 days ago. */
    stale: z.number().int(),
    never: z.number().int(),
    /** Admission pending (docs/REQUIREMENTS.md §11): waiting for an operator to accept or reject them. */
    pending: z.number().int(),
  }),
  productTypes: z.array(z.object({ _id: Id.nullable(), name: z.string().nullable(), devices: z.number().int() })),
  firmwares: z.array(z.object({ _id: Id.nullable(), name: z.string().nullable(), devices: z.number().int() })),
  apps: z.array(z.object({ version: z.string().nullable(), devices: z.number().int() })),
});
export type Overview = z.infer<typeof Overview>;

/** Where a device's firmware in effect comes from (docs/REQUIREMENTS.md §13's config resolution); null: no firmware at all. */
export const FIRMWARE_SOURCES = ["custom", "rollout", "default"] as const;
export type FirmwareSource = (typeof FIRMWARE_SOURCES)[number];

/**
 * GET devices/{deviceId}/firmware: the firmware its configuration names now and why: its custom firmware (an
 * operator's pin), a rollout's current stage (with the rollout), or the device type's default.
 */
export const FirmwareInEffect = z.object({
  deviceId: DeviceId,
  firmwareId: Id.nullable(),
  firmwareName: z.string().nullable(),
  source: z.enum(FIRMWARE_SOURCES).nullable(),
  rolloutId: Id.nullable(),
  rolloutName: z.string().nullable(),
});
export type FirmwareInEffect = z.infer<typeof FirmwareInEffect>;

/** The header row of GET devices.csv: the specification's columns plus app and OS version. */
export const DEVICE_CSV_COLUMNS = [
  "deviceId",
  "productType",
  "customFirmware",
  "additionalModules",
  "additionalTreatments",
  "lastLoggedIn",
  "updatedAt",
  "app",
  "os",
] as const;

export const DevicePatch = z.strictObject({
  deviceId: DeviceId,
  productTypeId: Id.nullable().optional(),
  moduleIds: uniqueIds(1000).optional(),
  firmware: Id.nullable().optional(),
  additionalTreatmentIds: uniqueIds(10_000).optional(),
});
export type DevicePatch = z.infer<typeof DevicePatch>;

/** docs/REQUIREMENTS.md §11: pre-authorize one device (it may enrol and get its token without waiting for an operator). */
export const PreauthorizeBody = z.strictObject({ deviceId: DeviceId });
export type PreauthorizeBody = z.infer<typeof PreauthorizeBody>;

/** Pre-authorize many devices at once (a factory's list of ids), in one transaction. */
export const PreauthorizeManyBody = z.strictObject({
  deviceIds: z.array(DeviceId).min(1, "must name at least one device").max(100_000, "is at most 100000 ids"),
});
export type PreauthorizeManyBody = z.infer<typeof PreauthorizeManyBody>;

/** What a bulk pre-authorization did: ids created as accepted; ids already known (left as they were). */
export const PreauthorizeManyResult = z.object({
  created: z.array(DeviceId),
  existing: z.array(z.object({ deviceId: DeviceId, admission: Admission })),
});
export type PreauthorizeManyResult = z.infer<typeof PreauthorizeManyResult>;

/** GET device_admission: how devices authenticate on this server and how many wait for an operator. */
export const AdmissionSummary = z.object({
  auth: z.enum(["shared", "token"]),
  admission: z.enum(["manual", "auto"]),
  counts: z.object({ pending: z.number().int(), accepted: z.number().int(), rejected: z.number().int() }),
});
export type AdmissionSummary = z.infer<typeof AdmissionSummary>;
