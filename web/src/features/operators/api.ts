import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import type { NewOperator, OperatorPatch } from "../../../../shared/schemas/operator.ts";
import { api } from "../../lib/api.ts";

export const operatorKeys = {
  all: ["operators"] as const,
  list: () => [...operatorKeys.all, "list"] as const,
};

export const operatorsQuery = () => queryOptions({ queryKey: operatorKeys.list(), queryFn: () => api.listOperators() });

export function useCreateOperator() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: NewOperator) => api.createOperator(body),
    onSettled: () => qc.invalidateQueries({ queryKey: operatorKeys.all }),
  });
}

/** Role or disabled flag; a refusal (409: the last active admin) leaves the list as the server has it. */
export function usePatchOperator() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, patch }: { id: string; patch: OperatorPatch }) => api.patchOperator(id, patch),
    onSettled: () => qc.invalidateQueries({ queryKey: operatorKeys.all }),
  });
}

export function useResetOperatorPassword() {
  return useMutation({
    mutationFn: ({ id, password }: { id: string; password: string }) => api.resetOperatorPassword(id, password),
  });
}
