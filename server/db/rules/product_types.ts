/** The rules of product types and their module lists, shared by every engine. */
import type { ModuleInput } from "../../../shared/schemas/product_type.ts";
import { InvalidError } from "../errors.ts";

/** Names are unique case-insensitively: the key is the Unicode-normalized, lower-cased name. */
export const nameKey = (name: string) => name.normalize("NFC").toLowerCase();

export const noProductType = (id: string) => `No product type with id ${id}.`;

export const productTypeNameTaken = (name: string) =>
  `A product type named ${name} already exists (names ignore case).`;

/** What the engine found, inside the update's transaction, about a new module list. */
export interface ModuleListFacts {
  /** Ids of the product type's modules as stored. */
  own: ReadonlySet<string>;
  /** Per module of the list: the first of its treatmentIds that is not a treatment, or null. */
  missingTreatments: readonly (string | null)[];
}

/** InvalidError naming `modules.N.<field>` for the first module that does not fit. */
export function checkModuleList(modules: readonly ModuleInput[], facts: ModuleListFacts): void {
  const seen = new Set<string>();
  modules.forEach((m, i) => {
    if (m._id !== undefined) {
      if (!facts.own.has(m._id)) {
        throw new InvalidError(`modules.${i}._id: ${m._id} is not a module of this product type.`);
      }
      if (seen.has(m._id)) throw new InvalidError(`modules.${i}._id: module ${m._id} is listed more than once.`);
      seen.add(m._id);
    }
    const missing = facts.missingTreatments[i];
    if (missing !== null) throw new InvalidError(`modules.${i}.treatmentIds: no treatment with id ${missing}.`);
  });
}

/** A product type as the target of an audit entry. */
export const productTypeTarget = (id: string, name: string) => ({ type: "product_type", id, name });

/** The details of a product type update's entry: what was sent, and the name and modules it replaced. */
export const productTypeUpdateDetails = (
  update: { name: string; theme?: unknown; modules: unknown[] },
  before: { name: string; modules: { _id: string; name: string }[] } | null,
) => ({
  changes: update,
  before: before ? { name: before.name, modules: before.modules.map((m) => ({ _id: m._id, name: m.name })) } : null,
});
