import { keepPreviousData, queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import type { Admission, Device, DevicePatch } from "../../../../shared/schemas/mod.ts";
import { api } from "../../lib/api.ts";
import { countDevices } from "./deviceCount.ts";

export { MAX_COUNTED_DEVICES } from "./deviceCount.ts";

export interface DeviceListParams {
  page: number;
  rowsPerPage: number;
  q: string;
  /** CONTRACT §11: only devices of this admission state. */
  admission?: Admission;
}

export const deviceKeys = {
  all: ["devices"] as const,
  lists: () => [...deviceKeys.all, "list"] as const,
  list: (p: DeviceListParams) => [...deviceKeys.lists(), p] as const,
  details: () => [...deviceKeys.all, "detail"] as const,
  detail: (id: string) => [...deviceKeys.details(), id] as const,
};

/** One server page of devices; the previous page stays visible while the next loads. */
export const devicesQuery = ({ page, rowsPerPage, q, admission }: DeviceListParams) =>
  queryOptions({
    queryKey: deviceKeys.list({ page, rowsPerPage, q, admission }),
    queryFn: () => api.listDevices({ page, rowsPerPage, q: q || undefined, admission }),
    placeholderData: keepPreviousData,
  });

/** Device detail refetches on opening. */
export const deviceQuery = (id: string) =>
  queryOptions({
    queryKey: deviceKeys.detail(id),
    queryFn: () => api.getDevice(id),
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
    queryFn: () =>
      countDevices(
        (d) => (loss.kind === "productType" ? d.productTypeId === loss.id : d.moduleIds.includes(loss.id)),
        (page, rowsPerPage) => api.listDevices({ page, rowsPerPage }),
      ),
    staleTime: 0,
  });

/** How devices authenticate (DEVICE_AUTH) and how many are pending, accepted and rejected (CONTRACT §11). */
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
    },
  });
}
