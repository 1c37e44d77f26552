import * as z from "zod";
import { Id, Name, Timestamp } from "./common.ts";
import { type Role, roleAllows } from "./operator.ts";

/**
 * What an API token may do (docs/REQUIREMENTS.md §12). `read`: every read an operator route offers; each write scope also reads.
 * No scope reaches operator or token management, nor a password change.
 */
export const Scope = z.enum(["read", "firmware:write", "treatments:write", "devices:write", "product_types:write"]);
export type Scope = z.infer<typeof Scope>;
export const SCOPES: readonly Scope[] = Scope.options;

/** The least role a scope needs from the token's owner: a viewer may hold read tokens only. */
export const scopeRole = (s: Scope): Role => s === "read" ? "viewer" : "operator";
export const roleAllowsScope = (role: Role, s: Scope) => roleAllows(role, scopeRole(s));

/** The secret's prefix: `tdc_` then 43 base64url characters (256 random bits). */
export const TOKEN_PREFIX = "tdc_";
export const isApiTokenSecret = (text: string) => text.startsWith(TOKEN_PREFIX);

/** How many tokens one operator may hold at once. */
export const MAX_TOKENS_PER_OWNER = 100;

export const ApiToken = z.object({
  _id: Id,
  name: z.string(),
  scopes: z.array(Scope),
  createdAt: Timestamp,
  expiresAt: Timestamp.nullable(),
  lastUsedAt: Timestamp.nullable(),
  /** The owner's e-mail address. */
  owner: z.string(),
});
export type ApiToken = z.infer<typeof ApiToken>;

/** The answer to POST api_tokens: the token with its secret, shown this once. */
export const CreatedApiToken = ApiToken.extend({ token: z.string() });
export type CreatedApiToken = z.infer<typeof CreatedApiToken>;

const FutureTimestamp = z.iso.datetime({ offset: true, message: "must be an ISO 8601 date and time" })
  .refine((s) => Date.parse(s) > Date.now(), "must be in the future");

export const NewApiToken = z.strictObject({
  name: Name,
  scopes: z.array(Scope).min(1, "give at least one scope").max(SCOPES.length).refine(
    (s) => new Set(s).size === s.length,
    "must not contain duplicates",
  ),
  expiresAt: FutureTimestamp.nullable().optional(),
});
export type NewApiToken = z.input<typeof NewApiToken>;
