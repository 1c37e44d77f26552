/**
 * The known-browser mark (docs/REQUIREMENTS.md §19; OWASP "Slow Down Online Guessing Attacks with Device Cookies"): a successful
 * sign-in leaves a signed, HttpOnly, SameSite=Strict cookie naming the operator. At sign-in, a browser presenting a
 * valid mark for the e-mail's operator is throttled by its own failures only (counted per mark), so guesses from
 * elsewhere, however many addresses they come from, never hold the owner up there.
 *
 * The mark is `v1.<operator id>.<password version>.<issued at, s>.<nonce>.<HMAC-SHA256>` under the server's signing
 * secret. It is bound to the operator's password version, which every password change, demotion and disabling bumps:
 * each of those revokes every mark of that operator (docs/DECISIONS.md, "Field conditions: throttles"). It is sent only
 * to the sign-in route (Path), one cookie per operator (its name hashes the operator id), and never authenticates
 * anything: the password is always checked.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import type { Operator } from "../db/stores.ts";

const VERSION = "v1";
/** How long a mark lasts: a browser unused for sign-in this long is unknown again. */
export const KNOWN_BROWSER_MAX_AGE_SECONDS = 365 * 24 * 3600;
const COOKIE_PATH = "/api/v1/login";

/** The cookie of one operator's mark: a hash of the id, so any id makes a valid cookie name. */
export const knownBrowserCookie = (operatorId: string) =>
  `tdc_kb_${createHash("sha256").update(operatorId).digest("base64url").slice(0, 16)}`;

const sign = (secret: string, body: string) =>
  createHmac("sha256", secret).update(`known-browser\n${body}`).digest("base64url");

/** A fresh mark for the operator (a new nonce each time). */
export function newMark(secret: string, operator: Pick<Operator, "id" | "passwordVersion">, now = Date.now()): string {
  const body = [
    VERSION,
    Buffer.from(operator.id).toString("base64url"),
    operator.passwordVersion,
    Math.floor(now / 1000),
    randomBytes(16).toString("base64url"),
  ].join(".");
  return `${body}.${sign(secret, body)}`;
}

/**
 * The browser's id (the mark's nonce) when `mark` is a valid, current mark of this operator; else null: forged, of
 * another operator, from before a password change, demotion or disabling, expired, or the operator is disabled.
 */
export function markedBrowser(
  secret: string,
  operator: Pick<Operator, "id" | "passwordVersion" | "disabled">,
  mark: string | undefined,
  now = Date.now(),
): string | null {
  if (!mark || mark.length > 512 || operator.disabled) return null;
  const parts = mark.split(".");
  if (parts.length !== 6 || parts[0] !== VERSION) return null;
  const body = parts.slice(0, 5).join(".");
  // Compared as text, not as decoded bytes: base64url's last character carries unused bits, so several spellings decode
  // to the same bytes; only the one spelling the server wrote is its mark.
  const given = Buffer.from(parts[5]);
  const expected = Buffer.from(sign(secret, body));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  const [, id, version, issuedAt, nonce] = parts;
  if (Buffer.from(id, "base64url").toString() !== operator.id) return null;
  if (Number(version) !== operator.passwordVersion) return null;
  const age = now / 1000 - Number(issuedAt);
  if (!(age >= -60 && age < KNOWN_BROWSER_MAX_AGE_SECONDS)) return null;
  return nonce;
}

/** The request's mark for this operator, checked (see markedBrowser). */
export const knownBrowserOf = (c: Context, secret: string, operator: Operator): string | null =>
  markedBrowser(secret, operator, getCookie(c, knownBrowserCookie(operator.id)));

/** Marks the browser after a successful sign-in. `Secure` when the browser reached the server over https. */
export function markBrowser(c: Context, secret: string, operator: Operator, trustProxy: boolean): void {
  setCookie(c, knownBrowserCookie(operator.id), newMark(secret, operator), {
    path: COOKIE_PATH,
    httpOnly: true,
    sameSite: "Strict",
    secure: overHttps(c, trustProxy),
    maxAge: KNOWN_BROWSER_MAX_AGE_SECONDS,
  });
}

/** https as the browser saw it: the request's own scheme, or (TRUST_PROXY=1) the proxy's X-Forwarded-Proto. */
function overHttps(c: Context, trustProxy: boolean): boolean {
  if (new URL(c.req.url).protocol === "https:") return true;
  if (!trustProxy) return false;
  const proto = c.req.header("x-forwarded-proto")?.split(",").map((s) => s.trim().toLowerCase()).findLast((s) => s);
  return proto === "https";
}
