import type { ModuleInput, ProductType, Theme } from "../../../shared/schemas/product_type.ts";
import type { IfMatch } from "./revisions.ts";

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
   * Replaces name, theme and modules in one transaction (rules/product_types.ts), moving the revision: NotFoundError,
   * PreconditionFailedError when `ifMatch` does not hold, ConflictError for a name another type holds, InvalidError
   * for a module list that does not fit. Devices that lose a removed module get their updatedAt and revision moved.
   */
  update(id: string, update: ProductTypeUpdate, ifMatch?: IfMatch): Promise<ProductType>;
  /**
   * Deletes it; its devices get no product type and no modules, their updatedAt and revision moved. NotFoundError
   * when unknown, PreconditionFailedError when `ifMatch` does not hold.
   */
  remove(id: string, ifMatch?: IfMatch): Promise<void>;
}
