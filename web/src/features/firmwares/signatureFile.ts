/** An upload's detached signature as the dialog holds it: base64 text (empty: unsigned) and the key (null: any). */
export interface SignatureChoice {
  signature: string;
  keyId: string | null;
}

export const NO_SIGNATURE: SignatureChoice = { signature: "", keyId: null };

/** Bytes of base64 text (with line breaks), as `openssl base64` or `base64` write a signature. */
const BASE64_TEXT = /^[A-Za-z0-9+/=\s]+$/;

/**
 * The base64 signature the server takes, from a picked signature file: a file that already holds base64 text is sent
 * as it is (without line breaks); any other file is the raw signature (`openssl pkeyutl -sign` or `openssl dgst
 * -sign` write bytes) and is encoded.
 */
export function signatureFromFile(bytes: Uint8Array): string {
  const text = new TextDecoder("latin1").decode(bytes);
  if (bytes.length > 0 && BASE64_TEXT.test(text) && text.replace(/\s/g, "").length % 4 === 0) {
    return text.replace(/\s/g, "");
  }
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** A pasted signature as it is sent: without spaces and line breaks. */
export const pastedSignature = (text: string) => text.replace(/\s/g, "");
