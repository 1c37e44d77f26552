/**
 * A firmware file's three digests, taken in the one pass that sees every byte: sha256 (the console's) and sha1 and md5
 * (hawkBit DDI lists them: docs/REQUIREMENTS.md §18). Used by the disk write thread and the bucket put alike.
 */
import { createHash } from "node:crypto";
import type { StoredBytes } from "./firmware_files.ts";

export function fileHashes() {
  const hashes = [createHash("sha256"), createHash("sha1"), createHash("md5")];
  return {
    update(bytes: Uint8Array): void {
      for (const hash of hashes) hash.update(bytes);
    },
    digest(): Omit<StoredBytes, "size"> {
      const [sha256, sha1, md5] = hashes.map((hash) => hash.digest("hex"));
      return { sha256, sha1, md5 };
    },
  };
}
