/**
 * Release keys and signatures for tests (docs/REQUIREMENTS.md §20), made the way a build pipeline makes them: with the
 * openssl command line (`openssl genpkey`, `openssl dgst -sha256 -binary`, `openssl pkeyutl -sign -rawin` for Ed25519,
 * `openssl dgst -sha256 -sign` for ECDSA P-256), at test time.
 */
import { generateKeyPairSync } from "node:crypto";
import { join } from "node:path";

export type KeyKind = "ed25519" | "ecdsa-p256";

async function openssl(args: string[]): Promise<Uint8Array> {
  const out = await new Deno.Command("openssl", { args, stdout: "piped", stderr: "piped" }).output();
  if (!out.success) throw new Error(`openssl ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  return out.stdout;
}

export interface OpensslKey {
  kind: KeyKind;
  /** The private key's PEM file (what the pipeline keeps secret). */
  privatePath: string;
  /** The public key, PEM: what an admin registers. */
  publicPem: string;
}

/** A new key pair made by openssl in `dir`. */
export async function opensslKey(
  dir: string,
  kind: KeyKind,
  name = `${kind}-${crypto.randomUUID()}`,
): Promise<OpensslKey> {
  const privatePath = join(dir, `${name}.pem`);
  if (kind === "ed25519") await openssl(["genpkey", "-algorithm", "ed25519", "-out", privatePath]);
  else await openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", privatePath]);
  const publicPem = new TextDecoder().decode(await openssl(["pkey", "-in", privatePath, "-pubout"]));
  return { kind, privatePath, publicPem };
}

/**
 * The detached signature of `file` as the pipeline makes it: the file's SHA-256 digest (32 raw bytes) written by
 * `openssl dgst -sha256 -binary`, then signed (Ed25519: pkeyutl -rawin; ECDSA: dgst -sha256 -sign, DER). Base64.
 */
export async function opensslSign(key: OpensslKey, file: string): Promise<string> {
  const digestPath = `${file}.${crypto.randomUUID()}.sha256`;
  await Deno.writeFile(digestPath, await openssl(["dgst", "-sha256", "-binary", file]));
  try {
    const sig = key.kind === "ed25519"
      ? await openssl(["pkeyutl", "-sign", "-rawin", "-inkey", key.privatePath, "-in", digestPath])
      : await openssl(["dgst", "-sha256", "-sign", key.privatePath, digestPath]);
    return btoa(String.fromCharCode(...sig));
  } finally {
    await Deno.remove(digestPath).catch(() => {});
  }
}

/** A fresh public key PEM (no openssl process: for samples that only need a valid key to register). */
export function freshPublicKeyPem(kind: KeyKind = "ed25519"): string {
  const { publicKey } = kind === "ed25519"
    ? generateKeyPairSync("ed25519")
    : generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  return publicKey.export({ type: "spki", format: "pem" }).toString();
}
