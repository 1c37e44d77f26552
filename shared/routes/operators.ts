import * as z from "zod";
import { Me, NewOperator, OperatorAccount, OperatorPatch, ResetPasswordBody } from "../schemas/operator.ts";
import { IdParams } from "./params.ts";
import { errors, json, noBody, route } from "./route.ts";

export const operatorRoutes = {
  me: route({
    name: "me",
    method: "GET",
    path: "/me",
    auth: "operator",
    scope: "read",
    role: "viewer",
    summary: "The signed-in operator: e-mail address and role.",
    body: noBody,
    answers: { 200: json(Me), ...errors(401) },
  }),
  listOperators: route({
    name: "listOperators",
    method: "GET",
    path: "/operators",
    auth: "operator",
    scope: null,
    role: "admin",
    summary: "Every operator account (admins only).",
    body: noBody,
    answers: { 200: json(z.array(OperatorAccount)), ...errors(401, 403) },
  }),
  createOperator: route({
    name: "createOperator",
    method: "POST",
    path: "/operators",
    auth: "operator",
    scope: null,
    role: "admin",
    summary: "Add an operator with a role (default operator) and a first password (admins only).",
    body: json(NewOperator),
    answers: { 201: json(OperatorAccount), ...errors(400, 401, 403, 409, 413, 415, 429) },
  }),
  patchOperator: route({
    name: "patchOperator",
    method: "PATCH",
    path: "/operators/:id",
    auth: "operator",
    scope: null,
    role: "admin",
    summary:
      "Change an operator's role or disable them; demoting or disabling ends their sessions at once; the last active " +
      "admin cannot be demoted or disabled (409).",
    params: IdParams,
    body: json(OperatorPatch),
    answers: { 200: json(OperatorAccount), ...errors(400, 401, 403, 404, 409, 413, 415) },
  }),
  resetOperatorPassword: route({
    name: "resetOperatorPassword",
    method: "POST",
    path: "/operators/:id/reset_password",
    auth: "operator",
    scope: null,
    role: "admin",
    summary: "Set an operator's password (admins only); their sessions end at once.",
    params: IdParams,
    body: json(ResetPasswordBody),
    answers: { 200: json(OperatorAccount), ...errors(400, 401, 403, 404, 413, 415, 429) },
  }),
};
