/**
 * rules/rollouts.ts's bucket() in SQL: the first 32 bits of sha256(rolloutId + ":" + deviceId), big-endian, over
 * 2^32, times 100, in float8 as JavaScript computes it (so a device sits on the same side of a stage's percentage).
 */
export const BUCKET = (id: string) =>
  `((('x' || substr(encode(sha256(convert_to(${id} || ':' || d.device_id, 'UTF8')), 'hex'), 1, 8))::bit(32)::bigint)::float8 / 4294967296.0::float8 * 100.0::float8)`;
