import * as z from "zod";
import { ChangePasswordBody, LoginBody, LoginResponse } from "../schemas/auth.ts";
import { errors, json, route } from "./route.ts";

export const authRoutes = {
  login: route({
    name: "login",
    method: "POST",
    path: "/login",
    auth: "public",
    summary: "Sign in: an operator token for an e-mail address and password (every refusal is 401 or 429). A success " +
      "also sets the browser's known-browser cookie (tdc_kb_…), which spares it the waits others' guesses cause.",
    body: json(LoginBody),
    answers: { 200: json(LoginResponse), ...errors(401, 429) },
  }),
  changePassword: route({
    name: "changePassword",
    method: "POST",
    path: "/change_password",
    auth: "operator",
    scope: null,
    role: "viewer",
    summary:
      "Change the signed-in operator's password; earlier tokens stop working; repeated wrong current passwords are throttled (429).",
    body: json(ChangePasswordBody),
    answers: { 200: json(z.object({})), ...errors(400, 401, 413, 415, 429) },
  }),
};
