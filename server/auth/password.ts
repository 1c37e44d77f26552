import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

// scrypt with N=2^15, r=8, p=1 (~32 MiB, ~100 ms): slow enough for stored passwords.
const N = 32768, R = 8, P = 1, KEYLEN = 32, MAXMEM = 64 * 1024 * 1024;

// Each derivation takes 32 MiB: at most two run at once, so a burst of logins cannot balloon the memory. At most
// MAX_WAITING more wait their turn (under a second of work); beyond that a caller is refused at once rather than left
// waiting behind a long queue.
const MAX_CONCURRENT = 2;
export const MAX_WAITING = 16;
let running = 0;
const waiting: (() => void)[] = [];

/** The queue of password hashes is full: try again in a moment. */
export class HashQueueFullError extends Error {
  override name = "HashQueueFullError";
  constructor() {
    super("Too many passwords are being checked at once.");
  }
}

async function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  // A released slot is handed straight to the next waiter, so no newcomer can slip in between.
  if (running < MAX_CONCURRENT) running++;
  else if (waiting.length >= MAX_WAITING) throw new HashQueueFullError();
  else await new Promise<void>((resolve) => waiting.push(resolve));
  try {
    return await new Promise((resolve, reject) =>
      scrypt(
        password.normalize("NFC"),
        salt,
        KEYLEN,
        { N: n, r, p, maxmem: MAXMEM },
        (err, key) => err ? reject(err) : resolve(key),
      )
    );
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

/** `scrypt$N$r$p$salt$hash` (base64). HashQueueFullError when too many hashes wait already. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, N, R, P);
  return `scrypt$${N}$${R}$${P}$${salt.toString("base64")}$${key.toString("base64")}`;
}

/** HashQueueFullError when too many hashes wait already. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split("$");
  if (kind !== "scrypt" || !hash) return false;
  const expected = Buffer.from(hash, "base64");
  const key = await derive(password, Buffer.from(salt, "base64"), Number(n), Number(r), Number(p));
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A hash to compare against when the e-mail is unknown, so timing does not reveal it. */
export const dummyHash = hashPassword(crypto.randomUUID());

/** A random password for the bootstrap operator. */
export function randomPassword(): string {
  return randomBytes(15).toString("base64url");
}
