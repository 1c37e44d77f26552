// A part of the signed-in start that main.tsx evaluates in a task of its own: the schemas (zod's objects), before the
// route table and the API client.
export * as schemas from "../../../../shared/schemas/mod.ts";
