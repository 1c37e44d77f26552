import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import type { UploadArgs } from "../../components/UploadDialog.tsx";
import { api } from "../../lib/api.ts";

export const treatmentKeys = {
  all: ["treatments"] as const,
  summaries: () => [...treatmentKeys.all, "summaries"] as const,
  detail: (id: string) => [...treatmentKeys.all, "detail", id] as const,
};

/**
 * Every treatment without its phases (GET treatment_summaries): what the lists, counts and pickers show. The full
 * list with phases (GET treatments) is many times larger and no screen needs it.
 */
export const treatmentSummariesQuery = () =>
  queryOptions({ queryKey: treatmentKeys.summaries(), queryFn: () => api.listTreatmentSummaries() });

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
