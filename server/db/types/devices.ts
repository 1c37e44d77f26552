import type {
  Admission,
  Device,
  DeviceBulkSet,
  DeviceFilter as FleetFilter,
  Overview,
  PreauthorizeManyResult,
} from "../../../shared/schemas/device.ts";
import type { AdmissionAction } from "../rules/admission.ts";
import type { DeviceView } from "../rules/device_view.ts";
import type { ViewCursor } from "../rules/view_cursor.ts";
import type { IfMatch } from "./revisions.ts";

export interface DevicePage {
  data: Device[];
  total: number;
  /** false: `total` is a lower bound (a filter counted only to VIEW_COUNT_LIMIT past the page); absent: exact. */
  exact?: boolean;
}

/** The settings an operator patch may change: the type lives with the rules that check it (rules/devices.ts). */
import type { DeviceChanges } from "../rules/devices.ts";
export type { DeviceChanges };

/** Devices as operators see them (devices come into being by checking in: see DeviceApiStore). */
export interface DeviceStore {
  get(deviceId: string): Promise<Device | null>;
  /**
   * One page ordered by deviceId; `q` keeps the devices whose id contains it (ASCII case folded; `%`, `_` and `\`
   * are literal). A page beyond the end is empty with the real total.
   */
  list(page: number, perPage: number, q?: string, filter?: DeviceFilter): Promise<DevicePage>;
  /**
   * One page of a fleet view (docs/REQUIREMENTS.md §16): filters and sort served from indexes, ties broken by deviceId.
   * `product` names the managed device type (`jeecee_baby_<PRODUCT>`), whose default is the firmware in effect of
   * devices without a custom one. `count: false` skips the total (answered as -1) for export batches.
   */
  view(
    view: DeviceView,
    page: number,
    perPage: number,
    product: string,
    opts?: { count?: boolean },
  ): Promise<DevicePage>;
  /**
   * One export batch of a view (devices.csv): up to `limit` devices after `after` (null: from the start) in the view's
   * order, and the cursor to read the next batch from (null: the view ended). Each batch is one index range after the
   * cursor (no OFFSET), its own snapshot.
   */
  batch(
    view: DeviceView,
    after: ViewCursor | null,
    limit: number,
    product: string,
  ): Promise<{ data: Device[]; next: ViewCursor | null }>;
  /**
   * Applies `set` to the devices named (every one must exist) or matched by the filter, in ONE transaction, under the
   * rules of patch (a product type change clears the modules); answers how many devices changed. Any failure changes
   * none. Answers the ids changed too (for the audit trail).
   */
  bulk(
    target: { deviceIds: string[] } | { filter: FleetFilter },
    set: DeviceBulkSet,
    product: string,
  ): Promise<{ updated: number; deviceIds: string[] }>;
  /** Fleet health from count queries (firmware in effect; `_id: null` for none). */
  overview(product: string): Promise<Overview>;
  /**
   * Deletes kept counts that no view reads any more and that count no device; answers how many rows went. PostgreSQL:
   * the hours of check-ins (migration 10) older than the longest `seen` window plus a margin (rules/device_view.ts,
   * seenPruneBefore) with n = 0 — a trigger's upsert makes the row again if a device ever needs it, so no count is
   * lost. SQLite keeps no such rows: 0. The server runs it at start and every hour (server/main.ts).
   */
  pruneCounts(at?: Date): Promise<number>;
  /**
   * Brings the kept firmware keys (per device: the firmware the rollouts give it, its firmware in effect) up to the
   * rollouts and default in force, now; answers whether they are current. Readers that find them behind answer from
   * the rollouts device by device and start this in the background (docs/DECISIONS.md, "Firmware in effect, kept").
   */
  syncFirmwareKeys(product: string): Promise<boolean>;
  /** Product type and firmware names by id (for the CSV export and the console's names). */
  names(): Promise<{ productTypes: Map<string, string>; firmwares: Map<string, string> }>;
  /**
   * Checks every referenced id and writes the changes in one transaction, bumping updatedAt and the revision; answers
   * the device as saved. NotFoundError for an unknown device, then PreconditionFailedError when `ifMatch` does not
   * hold for its current revision, InvalidError naming the field otherwise (rules/devices.ts).
   *
   * What moves a device's revision: an operator's patch, and the cascades of product type changes (a module it had
   * removed, its product type deleted). A check-in (lastLoggedIn, versionInfo) does not: the device reporting in must
   * not make an operator's change fail.
   */
  patch(deviceId: string, changes: DeviceChanges, ifMatch?: IfMatch): Promise<Device>;
  /** Deletes a device and its module and treatment links; NotFoundError when unknown, PreconditionFailedError. */
  remove(deviceId: string, ifMatch?: IfMatch): Promise<void>;
  /**
   * A number that changes, in the same transaction, with every write to a device or its module and treatment links,
   * whichever process or connection makes it: what get and list answer is the same while it stays the same.
   * Read it before the data it versions (a newer answer under an older version only costs a recomputation).
   * SQLite: a counter row bumped by triggers. PostgreSQL: the same row bumped by statement-level triggers.
   */
  version(): Promise<number>;
  /** docs/REQUIREMENTS.md §11: records an unknown device as accepted without a token; ConflictError when it is known. */
  preauthorize(deviceId: string): Promise<Device>;
  /** Pre-authorizes the unknown ones of `deviceIds` in one transaction; the known ones are left as they are. */
  preauthorizeMany(deviceIds: string[]): Promise<PreauthorizeManyResult>;
  /**
   * Accept, reject or reset the credentials of a device (rules/admission.ts), moving its revision; answers the device
   * as saved. NotFoundError when unknown.
   */
  admit(deviceId: string, action: AdmissionAction): Promise<Device>;
  /** How many devices are in each admission state (count queries on an index). */
  admissionCounts(): Promise<Record<Admission, number>>;
}

/** Filters of the device list beyond `q` (docs/REQUIREMENTS.md §11's admission). */
export interface DeviceFilter {
  admission?: Admission;
}
