import type { ByteRange } from "../files/byte_range.ts";

export type { ByteRange };

/**
 * Parses a `Range` header for a resource of `size` bytes (RFC 9110 §14.1.2):
 * - `null`: no range asked, a unit other than bytes, or several ranges (we may ignore those and send the whole file);
 * - `"unsatisfiable"`: malformed, or no byte of it lies inside the file (answer 416);
 * - a ByteRange, clamped to the file.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | null | "unsatisfiable" {
  if (header === undefined) return null;
  const m = /^\s*bytes\s*=\s*(.*)$/i.exec(header);
  // A range unit other than bytes is ignored (RFC 9110 §14.2): the whole file is sent.
  if (!m) return /^\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+\s*=/.test(header) ? null : "unsatisfiable";
  const specs = m[1].split(",").map((s) => s.trim()).filter((s) => s !== "");
  if (specs.length === 0) return "unsatisfiable";
  const parsed: ByteRange[] = [];
  for (const spec of specs) {
    const r = /^(\d{0,15})-(\d{0,15})$/.exec(spec);
    if (!r || (r[1] === "" && r[2] === "")) return "unsatisfiable";
    if (r[1] === "") {
      const suffix = Number(r[2]);
      if (suffix === 0 || size === 0) continue;
      parsed.push({ start: Math.max(0, size - suffix), end: size - 1 });
    } else {
      const start = Number(r[1]);
      const end = r[2] === "" ? size - 1 : Number(r[2]);
      if (end < start) return "unsatisfiable";
      if (start >= size) continue;
      parsed.push({ start, end: Math.min(end, size - 1) });
    }
  }
  if (parsed.length === 0) return "unsatisfiable";
  return specs.length === 1 ? parsed[0] : null;
}

/** True when an `If-None-Match` header matches the strong ETag `etag` (weak comparison, as RFC 9110 asks). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  const bare = etag.replace(/^W\//, "");
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === bare);
}
