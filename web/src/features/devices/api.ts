import { keepPreviousData, queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import type { Device, DeviceBulk, DevicePatch, DeviceSort } from "../../../../shared/schemas/mod.ts";
import type { NewSavedView, PreferencesPatch, SavedViewPatch } from "../../../../shared/schemas/saved_view.ts";
import { api } from "../../lib/api.ts";
import { apiFilter, type DevicesFilterState, devicesRequest, NO_FILTER } from "./urlState.ts";
import { countCsvRecords, countDevices } from "./deviceCount.ts";

export { MAX_COUNTED_DEVICES } from "./deviceCount.ts";
export { devicesHref } from "./urlState.ts";

export interface DeviceListParams extends Partial<DevicesFilterState> {
  page: number;
  rowsPerPage: number;
  q: string;
  sort?: DeviceSort;
  order?: "asc" | "desc";
}

export const deviceKeys = {
  all: ["devices"] as const,
  lists: () => [...deviceKeys.all, "list"] as const,
  list: (p: DeviceListParams) => [...deviceKeys.lists(), p] as const,
  details: () => [...deviceKeys.all, "detail"] as const,
  detail: (id: string) => [...deviceKeys.details(), id] as const,
};

/** One server page of devices; the previous page stays visible while the next loads. */
export const devicesQuery = (params: DeviceListParams) => {
  const request = devicesRequest(params);
  return queryOptions({
    queryKey: deviceKeys.list({ ...NO_FILTER, ...request }),
    queryFn: () => api.listDevices(request),
    placeholderData: keepPreviousData,
  });
};

/** GET overview: fleet health from the server's count queries; refreshed with every device change. */
export const overviewQuery = () =>
  queryOptions({ queryKey: [...deviceKeys.all, "overview"] as const, queryFn: () => api.overview() });

/** POST devices/bulk: one transaction; every list, detail and the overview are refreshed after it. */
export function useBulkDevices() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: DeviceBulk) => api.bulkDevices(body),
    onSuccess: () => void qc.invalidateQueries({ queryKey: deviceKeys.all }),
  });
}

/**
 * How many devices a filter matches now, as the server counts them for POST devices/bulk: GET devices' total, or,
 * when that is a lower bound (some combinations of filters), the rows of GET devices.csv with the same filter.
 */
export async function countMatching(filter: DevicesFilterState): Promise<number> {
  const first = await api.listDevices({ ...apiFilter(filter), page: 0, rowsPerPage: 10 });
  if (first.exact) return first.total;
  const res = await api.devicesCsv(apiFilter(filter));
  return countCsvRecords(res.body);
}

/** Downloads GET devices.csv for the view's filters and sort (the server streams it; the token goes in a header). */
export async function downloadDevicesCsv(
  filter: DevicesFilterState,
  sort: DeviceSort,
  order: "asc" | "desc",
): Promise<void> {
  const res = await api.devicesCsv({ ...apiFilter(filter), sort, order });
  const blob = await res.blob();
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = "devices.csv";
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Device detail refetches on opening. */
export const deviceQuery = (id: string) =>
  queryOptions({
    queryKey: deviceKeys.detail(id),
    queryFn: () => api.getDevice(id),
    refetchOnMount: "always",
  });

/**
 * The firmware in effect for a device and why (custom, a rollout's stage, the default); asked again with every new
 * version of the device (its etag) and whenever devices change.
 */
export const deviceFirmwareQuery = (id: string, etag: string) =>
  queryOptions({
    queryKey: [...deviceKeys.detail(id), "firmware", etag] as const,
    queryFn: () => api.firmwareInEffect(id),
    refetchOnMount: "always",
  });

/**
 * PATCH devices/{deviceId} on the version `ifMatch` (its etag): a change someone else made since is refused with 412
 * instead of being overwritten. The answer becomes the cached detail and every list is refreshed.
 */
export function usePatchDevice() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ patch, ifMatch }: { patch: DevicePatch; ifMatch?: string }) => api.patchDevice(patch, { ifMatch }),
    onSuccess: (device) => {
      qc.setQueryData(deviceKeys.detail(device.deviceId), device);
      void qc.invalidateQueries({ queryKey: deviceKeys.lists() });
    },
  });
}

/** The device as the detail screen shows it (its etag is the version a change is made on). */
export function useShownDevice(deviceId: string): () => Device | undefined {
  const qc = useQueryClient();
  return useCallback(() => qc.getQueryData(deviceQuery(deviceId).queryKey), [qc, deviceId]);
}

/** Loads the device again (after a change was refused because someone else changed it). */
export function useReloadDevice(deviceId: string): () => Promise<void> {
  const qc = useQueryClient();
  return useCallback(() => qc.invalidateQueries({ queryKey: deviceKeys.detail(deviceId) }), [qc, deviceId]);
}

/** What a deletion takes away from devices: a product type, or one module of it. */
export type DeviceLoss = { kind: "productType" | "module"; id: string };

/**
 * How many devices have the product type, or the module enabled (null: the fleet is too large to count). Fetched when
 * a delete confirmation opens; any device change refreshes it.
 */
export const devicesLosingQuery = (loss: DeviceLoss) =>
  queryOptions({
    queryKey: [...deviceKeys.all, "count", loss.kind, loss.id] as const,
    queryFn: async () =>
      loss.kind === "productType"
        // One count query (GET devices takes productTypeId); modules have no filter: those are counted page by page.
        ? (await api.listDevices({ productTypeId: loss.id, rowsPerPage: 1 })).total
        : await countDevices(
          (d) => (loss.kind === "productType" ? d.productTypeId === loss.id : d.moduleIds.includes(loss.id)),
          (page, rowsPerPage) => api.listDevices({ page, rowsPerPage }),
        ),
    staleTime: 0,
  });

/** How devices authenticate (DEVICE_AUTH) and how many are pending, accepted and rejected (docs/REQUIREMENTS.md §11). */
export const admissionQuery = () =>
  queryOptions({
    queryKey: [...deviceKeys.all, "admission"] as const,
    queryFn: () => api.deviceAdmission(),
  });

export type AdmissionAction = "accept" | "reject" | "reset_credentials";

/** What an admission action did to several devices: the devices as they now are, and the refusals. */
export interface AdmissionOutcome {
  done: Device[];
  failed: { deviceId: string; error: unknown }[];
}

/**
 * Accept, reject or reset the credentials of devices, one after another (each its own request: one refusal does not
 * stop the others). The answers become the cached details; lists and counts are refreshed.
 */
export function useAdmitDevices() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ action, deviceIds }: { action: AdmissionAction; deviceIds: string[] }) => {
      const outcome: AdmissionOutcome = { done: [], failed: [] };
      for (const deviceId of deviceIds) {
        try {
          outcome.done.push(
            action === "accept"
              ? await api.acceptDevice(deviceId)
              : action === "reject"
              ? await api.rejectDevice(deviceId)
              : await api.resetDeviceCredentials(deviceId),
          );
        } catch (error) {
          outcome.failed.push({ deviceId, error });
        }
      }
      return outcome;
    },
    onSuccess: (outcome) => {
      for (const device of outcome.done) qc.setQueryData(deviceKeys.detail(device.deviceId), device);
      void qc.invalidateQueries({ queryKey: deviceKeys.lists() });
      void qc.invalidateQueries({ queryKey: admissionQuery().queryKey });
      // The menu's pending badge and the overview's tile count them too.
      void qc.invalidateQueries({ queryKey: overviewQuery().queryKey });
    },
  });
}

// Saved views and the column choice, per operator on the server (docs/DECISIONS.md, "Saved views and preferences per
// operator"). Their own keys: a device change does not touch them.
export const savedViewKeys = {
  all: ["saved_views"] as const,
  list: () => [...savedViewKeys.all, "list"] as const,
  preferences: () => [...savedViewKeys.all, "preferences"] as const,
};

/** GET saved_views: one's own and those others shared. */
export const savedViewsQuery = () =>
  queryOptions({ queryKey: savedViewKeys.list(), queryFn: () => api.listSavedViews(), staleTime: 30_000 });

/** GET me/preferences (the devices list's columns). */
export const preferencesQuery = () =>
  queryOptions({ queryKey: savedViewKeys.preferences(), queryFn: () => api.getPreferences(), staleTime: 60_000 });

export function useCreateSavedView() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: NewSavedView) => api.createSavedView(body),
    onSettled: () => qc.invalidateQueries({ queryKey: savedViewKeys.list() }),
  });
}

export function usePatchSavedView() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, patch }: { id: string; patch: SavedViewPatch }) => api.patchSavedView(id, patch),
    onSettled: () => qc.invalidateQueries({ queryKey: savedViewKeys.list() }),
  });
}

export function useDeleteSavedView() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.deleteSavedView(id),
    onSettled: () => qc.invalidateQueries({ queryKey: savedViewKeys.list() }),
  });
}

/** PATCH me/preferences: the answer becomes the cached preferences. */
export function usePatchPreferences() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (patch: PreferencesPatch) => api.patchPreferences(patch),
    onSuccess: (prefs) => qc.setQueryData(savedViewKeys.preferences(), prefs),
  });
}

/** The API calls the one-time import of this browser's old views uses (outside React). */
export const savedViewsApi = {
  list: () => api.listSavedViews(),
  create: (body: NewSavedView) => api.createSavedView(body),
};
