// A part of the signed-in start that main.tsx evaluates in a task of its own: the schemas (zod's objects), before the
// route table and the API client. For its evaluation only (a namespace re-export would keep every export).
import "../../../../shared/schemas/mod.ts";
