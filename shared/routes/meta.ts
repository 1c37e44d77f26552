import * as z from "zod";
import { json, noBody, route } from "./route.ts";

export const metaRoutes = {
  openApi: route({
    name: "openApi",
    method: "GET",
    path: "/openapi.json",
    auth: "public",
    summary: "This API's OpenAPI 3.1 description, generated from the schemas that validate its routes.",
    body: noBody,
    answers: { 200: json(z.looseObject({ openapi: z.string(), paths: z.record(z.string(), z.unknown()) })) },
  }),
};
