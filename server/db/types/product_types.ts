import type { ModuleInput, ProductType, Theme } from "../../../shared/schemas/product_type.ts";

export interface ProductTypeUpdate {
  name: string;
  /** Left out: the stored theme is kept. */
  theme?: Theme;
  /** The whole module list: a module with an `_id` of this type is kept (and updated), one without is new. */
  modules: ModuleInput[];
}

export interface ProductTypeStore {
  /** Ordered by name, case-insensitively; each with its modules in list order. */
  list(): Promise<ProductType[]>;
  get(id: string): Promise<ProductType | null>;
  /** A new product type without modules; ConflictError when the name is taken (ignoring case). */
  create(name: string): Promise<ProductType>;
  /**
   * Replaces name, theme and modules in one transaction (rules/product_types.ts): NotFoundError, ConflictError for a
   * name another type holds, InvalidError for a module list that does not fit. Devices that lose a removed module
   * get their updatedAt bumped.
   */
  update(id: string, update: ProductTypeUpdate): Promise<ProductType>;
  /** Deletes it; its devices get no product type and no modules, updatedAt bumped. NotFoundError when unknown. */
  remove(id: string): Promise<void>;
}
