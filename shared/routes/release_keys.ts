import * as z from "zod";
import { NewReleaseKey, ReleaseKey } from "../schemas/release_key.ts";
import { empty, errors, json, noBody, route } from "./route.ts";
import { IdParams } from "./params.ts";

/**
 * Release keys (docs/REQUIREMENTS.md §20): admins register and revoke them, signed in (no API token changes them:
 * a token that could add a key could sign for itself). Any signed-in operator and any API token (`read`) reads them:
 * they are public keys, and the devices' build pipelines fetch the key to build into the image with a CI token
 * (docs/DECISIONS.md, "Release integrity").
 */
export const releaseKeyRoutes = {
  listReleaseKeys: route({
    name: "listReleaseKeys",
    method: "GET",
    path: "/release_keys",
    auth: "operator",
    summary: "The registered release keys, revoked ones included (revokedAt set), oldest first.",
    body: noBody,
    answers: { 200: json(z.array(ReleaseKey)), ...errors(401, 403) },
  }),
  getReleaseKey: route({
    name: "getReleaseKey",
    method: "GET",
    path: "/release_keys/:id",
    auth: "operator",
    summary: "One release key with its PEM public key: what a device's build pipeline builds in to check signatures.",
    params: IdParams,
    body: noBody,
    answers: { 200: json(ReleaseKey), ...errors(400, 401, 403, 404) },
  }),
  createReleaseKey: route({
    name: "createReleaseKey",
    method: "POST",
    path: "/release_keys",
    auth: "operator",
    role: "admin",
    scope: null,
    summary: "Register a release key: a PEM public key, Ed25519 or ECDSA P-256 (400 otherwise). Names are unique " +
      "(ignoring case) and a key (its fingerprint) is registered once, revoked ones included (409).",
    body: json(NewReleaseKey),
    answers: { 201: json(ReleaseKey), ...errors(400, 401, 403, 409, 413, 415) },
  }),
  revokeReleaseKey: route({
    name: "revokeReleaseKey",
    method: "DELETE",
    path: "/release_keys/:id",
    auth: "operator",
    role: "admin",
    scope: null,
    summary: "Revoke a release key: it verifies no new upload from now on; its row stays (firmware it signed keeps " +
      "naming it) and it is never reused. 409 when it is revoked already.",
    params: IdParams,
    body: noBody,
    answers: { 204: empty, ...errors(400, 401, 403, 404, 409) },
  }),
};
