/**
 * The V8 flags of the server process, passed as `--v8-flags=<SERVER_V8_FLAGS>` by every way of starting it: deno.json's
 * `start` and `demo` tasks, the image (Dockerfile, deploy/image/deno.json), testing/server.ts and the bench
 * (scripts/bench/util.ts); tests/server/v8_flags.test.ts holds them to this one text.
 *
 * - `--expose-gc`: the young collections of a long stream (shared/collect_chunks.ts).
 * - `--max-semi-space-size=4`: the young generation at most 2 × 4 MiB instead of V8's default (2 × 16 MiB, grown at
 *   start-up and kept): the server's idle and peak memory ~10-20 MiB lower, a 1 GiB upload to a bucket within 150 MiB,
 *   no CPU cost measured (docs/DECISIONS.md, "Bucket uploads within 150 MiB").
 */
export const SERVER_V8_FLAGS = "--expose-gc,--max-semi-space-size=4";
