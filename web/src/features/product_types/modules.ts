import type { Module, ModuleInput, ProductType, ProductTypePatch } from "../../../../shared/schemas/product_type.ts";

/** Ids ordered by their treatment's name (unknown ids last, by id), so module lists always read alphabetically. */
export function sortIdsByName(ids: readonly string[], nameOf: (id: string) => string | undefined): string[] {
  return [...ids].sort((a, b) => {
    const na = nameOf(a);
    const nb = nameOf(b);
    if (na === undefined || nb === undefined) return na === nb ? a.localeCompare(b) : na === undefined ? 1 : -1;
    return na.localeCompare(nb) || a.localeCompare(b);
  });
}

const asInput = (m: Module): ModuleInput => ({
  _id: m._id,
  name: m.name,
  isDefault: m.isDefault,
  treatmentIds: m.treatmentIds,
});

/** The PATCH body with one module replaced (by _id) or, without _id, appended. The whole list goes every time. */
export function withModule(pt: ProductType, module: ModuleInput): ProductTypePatch {
  const modules = pt.modules.map(asInput);
  const at = module._id ? modules.findIndex((m) => m._id === module._id) : -1;
  if (at >= 0) modules[at] = module;
  else modules.push(module);
  return { _id: pt._id, name: pt.name, theme: pt.theme, modules };
}

export function withoutModule(pt: ProductType, moduleId: string): ProductTypePatch {
  return {
    _id: pt._id,
    name: pt.name,
    theme: pt.theme,
    modules: pt.modules.filter((m) => m._id !== moduleId).map(asInput),
  };
}

export function renamed(pt: ProductType, name: string): ProductTypePatch {
  return { _id: pt._id, name, theme: pt.theme, modules: pt.modules.map(asInput) };
}
