import * as z from "zod";
import { ApiToken, CreatedApiToken, NewApiToken } from "../schemas/api_token.ts";
import { empty, errors, json, noBody, route } from "./route.ts";
import { IdParams } from "./params.ts";

/**
 * API tokens for CI and scripts (docs/REQUIREMENTS.md §12). Any signed-in operator manages their own (a viewer: read-only ones);
 * admins see and revoke everyone's. No API token may call these (scope null): a token never makes or ends tokens.
 */
export const apiTokenRoutes = {
  listApiTokens: route({
    name: "listApiTokens",
    method: "GET",
    path: "/api_tokens",
    auth: "operator",
    role: "viewer",
    scope: null,
    summary: "One's own API tokens, newest first (admins: everyone's); never their secrets.",
    body: noBody,
    answers: { 200: json(z.array(ApiToken)), ...errors(401, 403) },
  }),
  createApiToken: route({
    name: "createApiToken",
    method: "POST",
    path: "/api_tokens",
    auth: "operator",
    role: "viewer",
    scope: null,
    summary:
      "Make an API token with scopes no wider than one's role and an optional expiry; the answer holds its secret " +
      "`token` (tdc_…), shown this once only.",
    body: json(NewApiToken),
    answers: { 201: json(CreatedApiToken), ...errors(400, 401, 403, 409, 413, 415) },
  }),
  revokeApiToken: route({
    name: "revokeApiToken",
    method: "DELETE",
    path: "/api_tokens/:id",
    auth: "operator",
    role: "viewer",
    scope: null,
    summary: "Revoke an API token: it stops working at once, on every replica (one's own; admins: anyone's).",
    params: IdParams,
    body: noBody,
    answers: { 204: empty, ...errors(400, 401, 403, 404) },
  }),
};
