/**
 * Answers the connection front need not look at for a download to watch (direct_serve.ts): built whole in memory
 * with no Content-Length of their own, so the front would not watch them anyway. Marking them spares the front reading
 * their headers, which makes Deno drop the answer's native form (built in Rust when the Response was made) and write
 * it the slower way: ~1.5–2 µs per answer, on the lean routes' hot answers.
 */
const unwatched = new WeakSet<Response>();

export function markUnwatched(res: Response): Response {
  unwatched.add(res);
  return res;
}

export const isUnwatched = (res: Response): boolean => unwatched.has(res);
