import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import type { NewReleaseKey, ReleaseKey, ReleaseKeyAlgorithm } from "../../../../shared/schemas/release_key.ts";
import { api } from "../../lib/api.ts";

export const releaseKeyKeys = {
  all: ["release_keys"] as const,
  list: () => [...releaseKeyKeys.all, "list"] as const,
};

/** GET release_keys: every registered key, revoked ones included (any signed-in role reads them: public keys). */
export const releaseKeysQuery = () =>
  queryOptions({ queryKey: releaseKeyKeys.list(), queryFn: () => api.listReleaseKeys() });

/** The keys that still verify new uploads (what the upload dialog offers). */
export const activeKeys = (keys: readonly ReleaseKey[] | undefined): ReleaseKey[] =>
  (keys ?? []).filter((k) => k.revokedAt === null);

/** How the console names an algorithm. */
export const ALGORITHM_LABEL: Record<ReleaseKeyAlgorithm, string> = {
  ed25519: "Ed25519",
  "ecdsa-p256": "ECDSA P-256",
};

/** A key's short id: the first 16 hex digits of its fingerprint, in groups of four. */
export const shortFingerprint = (fingerprint: string) => fingerprint.slice(0, 16).replace(/(.{4})(?=.)/g, "$1 ");

/** POST release_keys (admins): the server checks the PEM; its refusal is shown in the dialog. */
export function useCreateReleaseKey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ name, publicKey }: NewReleaseKey) => api.createReleaseKey(name, publicKey),
    onSettled: () => qc.invalidateQueries({ queryKey: releaseKeyKeys.all }),
  });
}

/** DELETE release_keys/{id} (admins): revoked for good, the row stays. */
export function useRevokeReleaseKey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.revokeReleaseKey(id),
    onSettled: () => qc.invalidateQueries({ queryKey: releaseKeyKeys.all }),
  });
}
