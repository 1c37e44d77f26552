/**
 * A firmware file's three digests, taken in the one pass that sees every byte: sha256 (the console's) and sha1 and md5
 * (hawkBit DDI lists them: docs/REQUIREMENTS.md §18). Used by the disk write thread and the bucket put alike.
 *
 * Computed by the system's OpenSSL (libcrypto.so.3, through Deno's FFI) where it loads, else by node:crypto: the same
 * digests, but OpenSSL's md5 takes ~1.4 s of CPU per GiB against node:crypto's ~1.7 (sha256 and sha1 cost the same
 * either way); docs/DECISIONS.md, "Bucket uploads near the hashing floor".
 */
import { createHash } from "node:crypto";
import type { StoredBytes } from "./firmware_files.ts";

export type Digests = Omit<StoredBytes, "size">;

const ALGORITHMS = ["sha256", "sha1", "md5"] as const;
type Algorithm = typeof ALGORITHMS[number];
const DIGEST_BYTES: Record<Algorithm, number> = { sha256: 32, sha1: 20, md5: 16 };

/** One running digest. */
interface Hash {
  update(bytes: Uint8Array): void;
  /** The digest in hex; the hash is spent. */
  digest(): string;
}

const LIBCRYPTO = {
  EVP_MD_CTX_new: { parameters: [], result: "pointer" },
  EVP_MD_CTX_free: { parameters: ["pointer"], result: "void" },
  EVP_sha256: { parameters: [], result: "pointer" },
  EVP_sha1: { parameters: [], result: "pointer" },
  EVP_md5: { parameters: [], result: "pointer" },
  EVP_DigestInit_ex: { parameters: ["pointer", "pointer", "pointer"], result: "i32" },
  EVP_DigestUpdate: { parameters: ["pointer", "buffer", "usize"], result: "i32" },
  EVP_DigestFinal_ex: { parameters: ["pointer", "buffer", "pointer"], result: "i32" },
} as const;

type OpenSsl = Deno.DynamicLibrary<typeof LIBCRYPTO>["symbols"];

/** libcrypto's symbols, or null where it is missing or FFI is not allowed. */
function loadOpenSsl(): OpenSsl | null {
  try {
    return Deno.dlopen("libcrypto.so.3", LIBCRYPTO).symbols;
  } catch {
    return null;
  }
}

let openSsl: OpenSsl | null | undefined;

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/** Frees the context of a hash dropped before its digest (an aborted upload). */
const contexts = new FinalizationRegistry<Deno.PointerValue>((ctx) => openSsl?.EVP_MD_CTX_free(ctx));

function openSslHash(lib: OpenSsl, algorithm: Algorithm): Hash {
  const md = algorithm === "sha256" ? lib.EVP_sha256() : algorithm === "sha1" ? lib.EVP_sha1() : lib.EVP_md5();
  const ctx = lib.EVP_MD_CTX_new();
  if (ctx === null || lib.EVP_DigestInit_ex(ctx, md, null) !== 1) throw new Error(`OpenSSL cannot start ${algorithm}`);
  const hash = {
    update(bytes: Uint8Array) {
      if (lib.EVP_DigestUpdate(ctx, bytes, BigInt(bytes.length)) !== 1) throw new Error(`OpenSSL ${algorithm} failed`);
    },
    digest() {
      const out = new Uint8Array(DIGEST_BYTES[algorithm]);
      const done = lib.EVP_DigestFinal_ex(ctx, out, null);
      contexts.unregister(hash);
      lib.EVP_MD_CTX_free(ctx);
      if (done !== 1) throw new Error(`OpenSSL ${algorithm} failed`);
      return hex(out);
    },
  };
  contexts.register(hash, ctx, hash);
  return hash;
}

function nodeHash(algorithm: Algorithm): Hash {
  const hash = createHash(algorithm);
  return { update: (bytes) => void hash.update(bytes), digest: () => hash.digest("hex") };
}

/** Which implementation fileHashes() uses (tests, figures). */
export function hashEngine(): "openssl" | "node:crypto" {
  openSsl ??= loadOpenSsl();
  return openSsl ? "openssl" : "node:crypto";
}

/** `engine` forces one implementation (tests); by default OpenSSL where it loads. */
export function fileHashes(engine = hashEngine()) {
  const lib = engine === "openssl" ? (openSsl ??= loadOpenSsl()) : null;
  if (engine === "openssl" && !lib) throw new Error("OpenSSL's libcrypto.so.3 cannot be loaded");
  const hashes = ALGORITHMS.map((algorithm) => lib ? openSslHash(lib, algorithm) : nodeHash(algorithm));
  return {
    update(bytes: Uint8Array): void {
      for (const hash of hashes) hash.update(bytes);
    },
    digest(): Digests {
      const [sha256, sha1, md5] = hashes.map((hash) => hash.digest());
      return { sha256, sha1, md5 };
    },
  };
}
