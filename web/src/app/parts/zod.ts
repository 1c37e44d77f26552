// A part of the signed-in start that main.tsx evaluates in a task of its own: zod's classes, before the schemas.
export { z } from "zod";
