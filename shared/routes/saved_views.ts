import * as z from "zod";
import { NewSavedView, Preferences, PreferencesPatch, SavedView, SavedViewPatch } from "../schemas/saved_view.ts";
import { IdParams } from "./params.ts";
import { empty, errors, json, noBody, route } from "./route.ts";

/**
 * Saved views of the devices list and console preferences, per operator (issue 20; docs/DECISIONS.md, "Saved views").
 * They are preferences, not fleet changes: every role keeps its own (viewers too). API tokens read them (`read`, so CI
 * can run `devices list --view NAME`); no token writes them (scope null).
 */
export const savedViewRoutes = {
  listSavedViews: route({
    name: "listSavedViews",
    method: "GET",
    path: "/saved_views",
    auth: "operator",
    role: "viewer",
    scope: "read",
    summary: "One's own saved views and those other operators shared, by name (ignoring case).",
    body: noBody,
    answers: { 200: json(z.array(SavedView)), ...errors(401) },
  }),
  createSavedView: route({
    name: "createSavedView",
    method: "POST",
    path: "/saved_views",
    auth: "operator",
    role: "viewer",
    scope: null,
    summary: "Save a view of the devices list (filters and sort, checked as GET devices checks them). 409 when one's " +
      "own view of that name exists (ignoring case) or one already keeps the most views allowed (50).",
    body: json(NewSavedView),
    answers: { 201: json(SavedView), ...errors(400, 401, 403, 409, 413, 415) },
  }),
  patchSavedView: route({
    name: "patchSavedView",
    method: "PATCH",
    path: "/saved_views/:id",
    auth: "operator",
    role: "viewer",
    scope: null,
    summary: "Rename, share or unshare a saved view, or replace its query (its owner only: another's shared view is " +
      "403, another's private one 404).",
    params: IdParams,
    body: json(SavedViewPatch),
    answers: { 200: json(SavedView), ...errors(400, 401, 403, 404, 409, 413, 415) },
  }),
  deleteSavedView: route({
    name: "deleteSavedView",
    method: "DELETE",
    path: "/saved_views/:id",
    auth: "operator",
    role: "viewer",
    scope: null,
    summary: "Delete a saved view: one's own, or (admins) a view another operator shared, which is audited.",
    params: IdParams,
    body: noBody,
    answers: { 204: empty, ...errors(400, 401, 403, 404) },
  }),
  getPreferences: route({
    name: "getPreferences",
    method: "GET",
    path: "/me/preferences",
    auth: "operator",
    role: "viewer",
    scope: "read",
    summary: "The signed-in operator's console preferences (the devices list's columns).",
    body: noBody,
    answers: { 200: json(Preferences), ...errors(401) },
  }),
  patchPreferences: route({
    name: "patchPreferences",
    method: "PATCH",
    path: "/me/preferences",
    auth: "operator",
    role: "viewer",
    scope: null,
    summary: "Change the signed-in operator's console preferences; members left out stay as they are, null resets one.",
    body: json(PreferencesPatch),
    answers: { 200: json(Preferences), ...errors(400, 401, 413, 415) },
  }),
};
