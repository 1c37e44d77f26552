/**
 * The one text rule (docs/REQUIREMENTS.md §17): every string that reaches storage or the audit trail is well-formed Unicode (no
 * lone surrogate) without NUL, so both engines store exactly what was hashed and what the client sent. The server
 * applies it once at the edge (server/lib/text_rule.ts: the URL; server/validate.ts: every JSON body; the multipart
 * reader: field values and file names).
 */

/** True for a string both engines store as it is: well-formed UTF-16 (no lone surrogate) and no NUL. */
export const isCleanText = (s: string): boolean => s.isWellFormed() && !s.includes("\u0000");

/**
 * Where a JSON value breaks the rule: the dotted path of the first string (or member name) that is not clean text,
 * e.g. "versionInfo.app" or "modules.0.name"; null when every string is clean. Depth-first, iterative (a body may nest
 * deeply).
 */
export function badTextAt(value: unknown, root = ""): string | null {
  const stack: [unknown, string][] = [[value, root]];
  while (stack.length) {
    const [v, at] = stack.pop()!;
    if (typeof v === "string") {
      if (!isCleanText(v)) return at || "(the value)";
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], at ? `${at}.${i}` : String(i)]);
    } else if (v !== null && typeof v === "object") {
      for (const [k, member] of Object.entries(v)) {
        const path = at ? `${at}.${k}` : k;
        if (!isCleanText(k)) return `${at ? `${at}.` : ""}${escapeText(k)}`;
        stack.push([member, path]);
      }
    }
  }
  return null;
}

/**
 * A string as the text of a JSON string literal without its quotes: NUL, controls, lone surrogates, `"` and `\` as
 * escapes, everything else as it is. Faithful (JSON.parse(`"${escapeText(s)}"`) === s) and always clean text: how a
 * string that breaks the rule is recorded where it must be (a failed sign-in's e-mail).
 */
export const escapeText = (s: string): string => JSON.stringify(s).slice(1, -1);

/** The refusal's wording, naming where: `${where}: must be well-formed text ...`. */
export const TEXT_RULE_MSG = "must be well-formed Unicode text without NUL characters or lone surrogates";
