import { describe, expect, it } from "vitest";
import { pastedSignature, signatureFromFile } from "./signatureFile.ts";

describe("signatureFromFile", () => {
  it("encodes a raw signature file (openssl's output) as base64", () => {
    const raw = new Uint8Array(64).map((_, i) => (i * 37 + 200) % 256);
    expect(signatureFromFile(raw)).toBe(btoa(String.fromCharCode(...raw)));
  });

  it("keeps a file of base64 text as it is, without its line breaks", () => {
    const b64 = btoa("x".repeat(64));
    const wrapped = `${b64.slice(0, 60)}\n${b64.slice(60)}\n`;
    expect(signatureFromFile(new TextEncoder().encode(wrapped))).toBe(b64);
  });

  it("treats text that is not whole base64 as bytes", () => {
    const bytes = new TextEncoder().encode("abc");
    expect(signatureFromFile(bytes)).toBe(btoa("abc"));
  });
});

describe("pastedSignature", () => {
  it("drops spaces and line breaks", () => {
    expect(pastedSignature(" AAAA\nBBBB \r\n")).toBe("AAAABBBB");
  });
});
