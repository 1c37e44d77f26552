import * as z from "zod";
import { ImportResult, Treatment, TREATMENT_IMPORT_EXTENSION, TreatmentSummary } from "../schemas/treatment.ts";
import { IdParams } from "./params.ts";
import { binary, errors, json, multipart, noBody, route } from "./route.ts";

export const treatmentRoutes = {
  listTreatments: route({
    name: "listTreatments",
    method: "GET",
    path: "/treatments",
    auth: "operator",
    summary: "Every treatment with its phases and channels.",
    body: noBody,
    answers: { 200: json(z.array(Treatment)), ...errors(401) },
  }),
  listTreatmentSummaries: route({
    name: "listTreatmentSummaries",
    method: "GET",
    path: "/treatment_summaries",
    auth: "operator",
    summary: "Every treatment without its phases (channel, phase and image counts), in the order of GET treatments.",
    body: noBody,
    answers: { 200: json(z.array(TreatmentSummary)), ...errors(401) },
  }),
  importTreatments: route({
    name: "importTreatments",
    method: "POST",
    path: "/treatments/import",
    auth: "operator",
    scope: "treatments:write",
    summary: "Import treatments from an SQLite file: all or nothing; 400 import_failed names the table.",
    body: multipart(TREATMENT_IMPORT_EXTENSION),
    answers: { 200: json(ImportResult), ...errors(400, 401, 408, 411, 413, 415, 507) },
  }),
  getTreatment: route({
    name: "getTreatment",
    method: "GET",
    path: "/treatments/:id",
    auth: "operator",
    summary: "One treatment.",
    params: IdParams,
    body: noBody,
    answers: { 200: json(Treatment), ...errors(400, 401, 404) },
  }),
  treatmentImage: route({
    name: "treatmentImage",
    method: "GET",
    path: "/treatment_images/:id",
    auth: "operator",
    summary: "An imported image, with its vetted image type, sandboxed and never cached.",
    params: IdParams,
    body: noBody,
    answers: { 200: binary("image/*"), ...errors(400, 401, 404) },
  }),
};
