/**
 * SWUpdate images built at test time: a cpio archive (newc `070701` or crc `070702`) whose first entry is
 * `sw-description` (libconfig syntax), then `sw-description.sig` (a CMS signature by `openssl cms`, DER, detached),
 * then the image. What SWUpdate 2022.12 expects was read from its source (core/cpio_utils.c, core/parser.c,
 * corelib/swupdate_cms_verify.c) and checked with Debian's `swupdate`. The image is installed by the `rawfile`
 * handler to a path the test chooses, so a test can read back what the agent installed.
 */
import { createHash } from "node:crypto";

export type CpioFormat = "070701" | "070702";

export interface CpioEntry {
  name: string;
  data: Uint8Array;
}

const enc = new TextEncoder();
const hex8 = (n: number) => (n >>> 0).toString(16).toUpperCase().padStart(8, "0");
const pad4 = (n: number) => (4 - (n % 4)) % 4;

/** The byte sum the crc format keeps per file (mod 2^32). */
export function cpioSum(data: Uint8Array): number {
  let sum = 0;
  for (const b of data) sum = (sum + b) >>> 0;
  return sum;
}

/** A cpio archive of the entries then `TRAILER!!!`, padded to `block` bytes with zeros (cpio pads to 512). */
export function cpioArchive(entries: CpioEntry[], format: CpioFormat = "070702", block = 512): Uint8Array {
  const parts: Uint8Array[] = [];
  let offset = 0;
  const push = (bytes: Uint8Array) => {
    parts.push(bytes);
    offset += bytes.length;
  };
  const all = [...entries, { name: "TRAILER!!!", data: new Uint8Array(0) }];
  all.forEach((entry, i) => {
    const name = enc.encode(entry.name + "\0");
    const isTrailer = i === all.length - 1;
    const fields = [
      isTrailer ? 0 : i + 1, // ino
      isTrailer ? 0 : 0o100644, // mode: a regular file
      0,
      0,
      isTrailer ? 1 : 1, // nlink
      0, // mtime
      entry.data.length,
      0,
      0,
      0,
      0,
      name.length,
      format === "070702" ? cpioSum(entry.data) : 0,
    ];
    push(enc.encode(format + fields.map(hex8).join("")));
    push(name);
    push(new Uint8Array(pad4(offset)));
    push(entry.data);
    push(new Uint8Array(pad4(offset)));
  });
  if (block > 0 && offset % block) push(new Uint8Array(block - (offset % block)));
  const out = new Uint8Array(offset);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

async function run(cmd: string, args: string[], stdin?: Uint8Array): Promise<Uint8Array> {
  const child = new Deno.Command(cmd, {
    args,
    stdin: stdin ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const output = child.output();
  if (stdin) {
    const w = child.stdin.getWriter();
    await w.write(stdin);
    await w.close();
  }
  const out = await output;
  if (!out.success) throw new Error(`${cmd} ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  return out.stdout;
}

export interface SigningKey {
  key: string;
  cert: string;
}

/**
 * A signing key and its self-signed certificate, made with openssl in `dir`. SWUpdate checks the signer's purpose
 * (emailProtection by default): the certificate says so.
 */
export async function makeSigningKey(dir: string, name = "signer"): Promise<SigningKey> {
  const key = `${dir}/${name}.key.pem`, cert = `${dir}/${name}.cert.pem`;
  await run("openssl", [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-keyout",
    key,
    "-out",
    cert,
    "-days",
    "2",
    "-subj",
    `/CN=${name}`,
    "-addext",
    "extendedKeyUsage=emailProtection",
  ]);
  return { key, cert };
}

/** `sw-description.sig`: a detached CMS signature (DER) of the bytes, as SWUpdate's docs make it. */
export async function cmsSign(signer: SigningKey, bytes: Uint8Array): Promise<Uint8Array> {
  return await run("openssl", [
    "cms",
    "-sign",
    "-signer",
    signer.cert,
    "-inkey",
    signer.key,
    "-outform",
    "DER",
    "-nosmimecap",
    "-binary",
  ], bytes);
}

export interface SwuOptions {
  signer: SigningKey;
  /** The image's bytes, installed by the `rawfile` handler to `installTo`. */
  image: Uint8Array;
  installTo: string;
  /** The hardware revisions the image is for (`hardware-compatibility`); the agent's `-H board:rev` must be one. */
  hardware: string[];
  version?: string;
  /** Sign other bytes than the sw-description shipped (a forged image: the agent refuses it). */
  forge?: boolean;
  format?: CpioFormat;
}

/** The sw-description (libconfig) for one image installed to a file. */
export function swDescription(o: { version: string; hardware: string[]; sha256: string; installTo: string }) {
  return `software =
{
\tversion = "${o.version}";
\tdescription = "console test image";
\thardware-compatibility: [ ${o.hardware.map((h) => JSON.stringify(h)).join(", ")} ];
\timages: (
\t\t{
\t\t\tfilename = "image.bin";
\t\t\ttype = "rawfile";
\t\t\tpath = "${o.installTo}";
\t\t\tsha256 = "${o.sha256}";
\t\t}
\t);
}
`;
}

/** A signed .swu image: sw-description, sw-description.sig, image.bin. */
export async function buildSwu(o: SwuOptions): Promise<Uint8Array> {
  const sha256 = createHash("sha256").update(o.image).digest("hex");
  const description = enc.encode(
    swDescription({ version: o.version ?? "1.0.0", hardware: o.hardware, sha256, installTo: o.installTo }),
  );
  const signed = o.forge
    ? enc.encode(new TextDecoder().decode(description).replace("test image", "forged"))
    : description;
  const sig = await cmsSign(o.signer, signed);
  return cpioArchive([
    { name: "sw-description", data: description },
    { name: "sw-description.sig", data: sig },
    { name: "image.bin", data: o.image },
  ], o.format);
}
