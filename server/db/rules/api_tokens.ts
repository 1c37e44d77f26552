import { MAX_TOKENS_PER_OWNER, roleAllowsScope, type Scope } from "../../../shared/schemas/api_token.ts";
import type { Role } from "../../../shared/schemas/operator.ts";

/** The token `id` does not exist (or is not the manager's to see). */
export const noToken = (id: string) => `No API token with id ${id}.`;
export const NOT_YOURS = "This API token is another operator's: only admins manage other people's tokens.";
export const TOO_MANY =
  `An operator holds at most ${MAX_TOKENS_PER_OWNER} API tokens: revoke one you no longer use first.`;

/** The refusal of scopes beyond the owner's role, or null when every scope fits it. */
export function scopesBeyondRole(role: Role, scopes: readonly Scope[]): string | null {
  const beyond = scopes.filter((s) => !roleAllowsScope(role, s));
  return beyond.length
    ? `scopes: ${beyond.join(", ")} ${beyond.length === 1 ? "is" : "are"} beyond the ${role} role; a token never ` +
      "does more than its owner may."
    : null;
}

/** An API token as the target of an audit entry. */
export const apiTokenTarget = (token: { _id: string; name: string }) => ({
  type: "api_token",
  id: token._id,
  name: token.name,
});

/** What an api_token.create or .revoke entry records (never the secret nor its hash). */
export const apiTokenDetails = (token: { owner: string; scopes: readonly Scope[]; expiresAt: string | null }) => ({
  owner: token.owner,
  scopes: [...token.scopes],
  expiresAt: token.expiresAt,
});

/** Scopes as stored: a space-separated list, in the order of SCOPES. */
export const storedScopes = (scopes: readonly Scope[]) => scopes.join(" ");
export const parseScopes = (text: string) => (text ? text.split(" ") : []) as Scope[];
