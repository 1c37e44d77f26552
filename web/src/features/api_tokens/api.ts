import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import type { NewApiToken } from "../../../../shared/schemas/api_token.ts";
import { api } from "../../lib/api.ts";

export const apiTokenKeys = {
  all: ["api_tokens"] as const,
  list: () => [...apiTokenKeys.all, "list"] as const,
};

export const apiTokensQuery = () => queryOptions({ queryKey: apiTokenKeys.list(), queryFn: () => api.listApiTokens() });

/** POST api_tokens: the answer holds the secret, shown once by the caller and never kept. */
export function useCreateApiToken() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: NewApiToken) => api.createApiToken(body),
    onSettled: () => qc.invalidateQueries({ queryKey: apiTokenKeys.all }),
  });
}

export function useRevokeApiToken() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.revokeApiToken(id),
    onSettled: () => qc.invalidateQueries({ queryKey: apiTokenKeys.all }),
  });
}
