import { MutationCache, QueryClient } from "@tanstack/react-query";
import { ApiError } from "../../../shared/client.ts";

/** A refused request (4xx) will be refused again: retry only network trouble and 5xx, once. */
function retry(failureCount: number, err: unknown): boolean {
  if (err instanceof ApiError && err.status !== undefined && err.status < 500) return false;
  return failureCount < 1;
}

/**
 * Unused cached data is kept 60 seconds. Requests are sent even when the browser says it is offline
 * (networkMode "always"): they fail at once and the screens say "You are offline" with Retry, instead of waiting
 * silently (paused) under the previous data; lists still reload by themselves when the connection returns.
 */
export const queryClient: QueryClient = new QueryClient({
  // Every change the console makes is an audit entry: the histories and the audit log shown are read again.
  mutationCache: new MutationCache({
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ["audit"] }),
  }),
  defaultOptions: {
    queries: {
      gcTime: 60_000,
      staleTime: 10_000,
      retry,
      refetchOnWindowFocus: false,
      networkMode: "always",
      // With networkMode "always" this would default to false.
      refetchOnReconnect: true,
    },
    mutations: { retry: false, networkMode: "always" },
  },
});
