/** Release key rules and messages, shared by every engine (docs/DECISIONS.md, "Release integrity"). */
import type { ReleaseKey } from "../../../shared/schemas/release_key.ts";

export const releaseKeyNameKey = (name: string) => name.trim().normalize("NFC").toLowerCase();

export const noReleaseKey = (id: string) => `No release key with id ${id}.`;
export const releaseKeyNameTaken = (name: string) =>
  `A release key named ${name} is registered already (revoked keys keep their names); choose another name.`;
export const releaseKeyRegistered = (name: string) =>
  `This public key is registered already as ${name}; a key is registered once (a revoked key is never reused).`;
export const releaseKeyRevokedAlready = (key: Pick<ReleaseKey, "name" | "revokedAt">) =>
  `Release key ${key.name} was revoked already (${key.revokedAt}).`;

export const releaseKeyTarget = (key: Pick<ReleaseKey, "_id" | "name">) => ({
  type: "release_key",
  id: key._id,
  name: key.name,
});

/** What the trail keeps of a key: enough to recognise it (never more than the public half). */
export const releaseKeyDetails = (key: ReleaseKey) => ({
  algorithm: key.algorithm,
  fingerprint: key.fingerprint,
});
