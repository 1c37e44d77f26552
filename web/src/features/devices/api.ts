import { keepPreviousData, queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import type { DevicePatch } from "../../../../shared/schemas/mod.ts";
import { api } from "../../lib/api.ts";
import { countDevices } from "./deviceCount.ts";

export { MAX_COUNTED_DEVICES } from "./deviceCount.ts";

export interface DeviceListParams {
  page: number;
  rowsPerPage: number;
  q: string;
}

export const deviceKeys = {
  all: ["devices"] as const,
  lists: () => [...deviceKeys.all, "list"] as const,
  list: (p: DeviceListParams) => [...deviceKeys.lists(), p] as const,
  details: () => [...deviceKeys.all, "detail"] as const,
  detail: (id: string) => [...deviceKeys.details(), id] as const,
};

/** One server page of devices; the previous page stays visible while the next loads. */
export const devicesQuery = ({ page, rowsPerPage, q }: DeviceListParams) =>
  queryOptions({
    queryKey: deviceKeys.list({ page, rowsPerPage, q }),
    queryFn: () => api.listDevices({ page, rowsPerPage, q: q || undefined }),
    placeholderData: keepPreviousData,
  });

/** SPEC §4: device detail refetches on opening. */
export const deviceQuery = (id: string) =>
  queryOptions({
    queryKey: deviceKeys.detail(id),
    queryFn: () => api.getDevice(id),
    refetchOnMount: "always",
  });

/** PATCH devices/{deviceId}; the answer becomes the cached detail and every list is refreshed. */
export function usePatchDevice() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (patch: DevicePatch) => api.patchDevice(patch),
    onSuccess: (device) => {
      qc.setQueryData(deviceKeys.detail(device.deviceId), device);
      void qc.invalidateQueries({ queryKey: deviceKeys.lists() });
    },
  });
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
