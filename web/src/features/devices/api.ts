import { keepPreviousData, queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import type { DevicePatch } from "../../../../shared/schemas/mod.ts";
import { api } from "../../lib/api.ts";

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
