/**
 * The If-Match request header (RFC 9110 §13.1.1): `*`, or a comma-separated list of entity tags, each `"…"` or weak
 * `W/"…"` (the quotes may enclose commas). If-Match compares strongly, so weak tags can never match: they are parsed
 * and dropped. Answers "*", the strong tags as written (quotes included), undefined when the header is absent, or
 * null when it is malformed (blank, unquoted, `*` within a list, characters a tag may not hold).
 */
export function parseIfMatch(value: string | undefined): "*" | string[] | undefined | null {
  if (value === undefined) return undefined;
  if (value.trim() === "*") return "*";
  const strong: string[] = [];
  let found = 0;
  let i = 0;
  const skipSpace = () => {
    while (value[i] === " " || value[i] === "\t") i++;
  };
  while (i < value.length) {
    skipSpace();
    if (value[i] === ",") { // an empty list element: allowed, and counts for nothing
      i++;
      continue;
    }
    if (i >= value.length) break;
    const weak = value.startsWith("W/", i);
    if (weak) i += 2;
    if (value[i] !== '"') return null;
    const end = value.indexOf('"', i + 1);
    if (end < 0) return null;
    const tag = value.slice(i, end + 1);
    if (!ETAG_CHARS.test(tag.slice(1, -1))) return null;
    found++;
    if (!weak) strong.push(tag);
    i = end + 1;
    skipSpace();
    if (i < value.length && value[i] !== ",") return null;
  }
  return found === 0 ? null : strong;
}

/** etagc: visible ASCII but the double quote, and obs-text. */
const ETAG_CHARS = /^[\x21\x23-\x7e\x80-\xff]*$/;
