import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import type { UploadArgs } from "../../components/UploadDialog.tsx";
import { api } from "../../lib/api.ts";

export const treatmentKeys = {
  all: ["treatments"] as const,
  list: () => [...treatmentKeys.all, "list"] as const,
  detail: (id: string) => [...treatmentKeys.all, "detail", id] as const,
};

export const treatmentsQuery = () =>
  queryOptions({ queryKey: treatmentKeys.list(), queryFn: () => api.listTreatments() });

export const treatmentQuery = (id: string) =>
  queryOptions({ queryKey: treatmentKeys.detail(id), queryFn: () => api.getTreatment(id) });

/** Uploads a .sqlite3 import file; refreshes every treatment list and detail afterwards (success or not). */
export function useImportTreatments() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ file, onProgress, opts }: UploadArgs) => api.importTreatments(file, onProgress, opts),
    onSettled: () => qc.invalidateQueries({ queryKey: treatmentKeys.all }),
  });
}
