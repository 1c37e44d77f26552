import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import type { Rollout, RolloutAction, RolloutCreate, RolloutDeviceFilter } from "../../../../shared/schemas/rollout.ts";
import { api } from "../../lib/api.ts";

export const rolloutKeys = {
  all: ["rollouts"] as const,
  list: () => [...rolloutKeys.all, "list"] as const,
  one: (id: string) => [...rolloutKeys.all, "one", id] as const,
  devices: (id: string, state: RolloutDeviceFilter | undefined, page: number) =>
    [...rolloutKeys.all, "devices", id, state ?? "all", page] as const,
  history: (id: string) => [...rolloutKeys.all, "history", id] as const,
  stages: (id: string) => [...rolloutKeys.all, "stages", id] as const,
  targets: (productTypeId: string | null) => [...rolloutKeys.all, "targets", productTypeId ?? "all"] as const,
};

/** A rollout that devices are still reporting on is polled; a settled one is not. */
const live = (r: Rollout | undefined) => r?.state === "running" || r?.state === "paused";
const POLL_MS = 5000;

export const rolloutsQuery = () =>
  queryOptions({
    queryKey: rolloutKeys.list(),
    queryFn: () => api.listRollouts(),
    refetchInterval: (q) => (q.state.data?.some(live) ? POLL_MS : false),
  });

export const rolloutQuery = (id: string) =>
  queryOptions({
    queryKey: rolloutKeys.one(id),
    queryFn: () => api.getRollout(id),
    refetchInterval: (q) => (live(q.state.data) ? POLL_MS : false),
  });

export const rolloutDevicesQuery = (id: string, state: RolloutDeviceFilter | undefined, page: number, poll: boolean) =>
  queryOptions({
    queryKey: rolloutKeys.devices(id, state, page),
    queryFn: () => api.rolloutDevices(id, { state, page, rowsPerPage: 10 }),
    refetchInterval: poll ? POLL_MS : false,
  });

export const rolloutHistoryQuery = (id: string, poll: boolean) =>
  queryOptions({
    queryKey: rolloutKeys.history(id),
    queryFn: () => api.rolloutHistory(id),
    refetchInterval: poll ? POLL_MS : false,
  });

/** Each stage's devices with how many installed, failed and are pending (GET rollouts/{id}/stages). */
export const rolloutStagesQuery = (id: string, poll: boolean) =>
  queryOptions({
    queryKey: rolloutKeys.stages(id),
    queryFn: () => api.rolloutStages(id),
    refetchInterval: poll ? POLL_MS : false,
  });

export const rolloutTargetsQuery = (productTypeId: string | null) =>
  queryOptions({ queryKey: rolloutKeys.targets(productTypeId), queryFn: () => api.rolloutTargets(productTypeId) });

export function useCreateRollout() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ body, start }: { body: RolloutCreate; start: boolean }) =>
      api.createRollout(body).then((r) => (start ? api.rolloutAction(r._id, "start") : r)),
    onSettled: () => qc.invalidateQueries({ queryKey: rolloutKeys.all }),
  });
}

export function useRolloutAction() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, action }: { id: string; action: RolloutAction }) => api.rolloutAction(id, action),
    onSuccess: (r) => qc.setQueryData(rolloutKeys.one(r._id), r),
    // promote changes the default firmware too; every action changes what devices are offered
    onSettled: () =>
      Promise.all([
        qc.invalidateQueries({ queryKey: rolloutKeys.all }),
        qc.invalidateQueries({ queryKey: ["device_types"] }),
        qc.invalidateQueries({ queryKey: ["devices"] }),
      ]),
  });
}

/** The new-rollout dialog's module, loaded when a screen opens it (the firmware screen's "staged rollout instead"). */
export const loadCreateRolloutDialog = () => import("./CreateRolloutDialog.tsx");
