/** A LIKE pattern (with ESCAPE '\') matching any text that contains `substring`: `%`, `_` and `\` match literally. */
export function likePattern(substring: string): string {
  return `%${substring.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}
