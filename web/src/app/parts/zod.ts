// A part of the signed-in start that main.tsx evaluates in a task of its own: zod's classes the schemas are built
// from, before the schemas. Named: re-exporting zod's namespace would keep the whole library (450 KB) in the bundle.
import "../../lib/zod_config.ts";
export { array, boolean, literal, number, object, record, strictObject, string, unknown } from "zod";
