import * as z from "zod";
import { Etag, Id, Name, Timestamp, uniqueIds } from "./common.ts";

export const Theme = z.record(z.string(), z.unknown()).refine(
  (t) => JSON.stringify(t).length <= 65_536,
  "is larger than 64 KiB",
);
export type Theme = z.infer<typeof Theme>;

export const Module = z.object({
  _id: Id,
  name: z.string(),
  isDefault: z.boolean(),
  treatmentIds: z.array(Id),
});
export type Module = z.infer<typeof Module>;

export const ProductType = z.object({
  _id: Id,
  name: z.string(),
  theme: z.record(z.string(), z.unknown()),
  modules: z.array(Module),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  etag: Etag,
});
export type ProductType = z.infer<typeof ProductType>;

export const ProductTypeCreate = z.strictObject({ name: Name });
export type ProductTypeCreate = z.infer<typeof ProductTypeCreate>;

export const ModuleInput = z.strictObject({
  _id: Id.optional(),
  name: Name,
  isDefault: z.boolean(),
  treatmentIds: uniqueIds(10_000),
});
export type ModuleInput = z.infer<typeof ModuleInput>;

export const ProductTypePatch = z.strictObject({
  _id: Id,
  name: Name,
  theme: Theme.optional(),
  modules: z.array(ModuleInput).max(500, "has more than 500 modules"),
});
export type ProductTypePatch = z.infer<typeof ProductTypePatch>;
