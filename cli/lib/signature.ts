/** The --signature of `firmware upload`: a signature file (raw bytes as openssl writes them, or base64 text), or base64. */
import { UsageError } from "./errors.ts";

const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/** The signature as base64; UsageError for a value that is neither a readable file nor base64. */
export async function readSignature(value: string): Promise<string> {
  let bytes: Uint8Array | null = null;
  try {
    bytes = await Deno.readFile(value);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) {
      throw new UsageError(`Cannot read the signature file ${value}: ${err instanceof Error ? err.message : err}`);
    }
  }
  if (bytes === null) {
    if (BASE64.test(value.trim())) return value.trim();
    throw new UsageError(`--signature: ${value} is neither a file nor base64.`);
  }
  if (bytes.length === 0) throw new UsageError(`The signature file ${value} is empty.`);
  const text = new TextDecoder().decode(bytes).trim();
  // openssl writes the raw signature; `openssl base64 -A` (or base64 -w0) writes it as text.
  if (BASE64.test(text.replace(/\s+/g, "")) && text.length >= 80) return text.replace(/\s+/g, "");
  return btoa(String.fromCharCode(...bytes));
}
