import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import type { ProductTypePatch } from "../../../../shared/schemas/mod.ts";
import { api } from "../../lib/api.ts";
import { deviceKeys } from "../devices/api.ts";

export const productTypeKeys = {
  all: ["product_types"] as const,
  list: () => [...productTypeKeys.all, "list"] as const,
  detail: (id: string) => [...productTypeKeys.all, "detail", id] as const,
};

/** Product type changes can clear devices' product type or module ids: devices refetch too. */
const DEVICES_KEY = deviceKeys.all;

export const productTypesQuery = () =>
  queryOptions({ queryKey: productTypeKeys.list(), queryFn: () => api.listProductTypes() });

/** Product type detail refetches on opening. */
export const productTypeQuery = (id: string) =>
  queryOptions({
    queryKey: productTypeKeys.detail(id),
    queryFn: () => api.getProductType(id),
    refetchOnMount: "always",
  });

export function useCreateProductType() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => api.createProductType(name),
    onSuccess: () => qc.invalidateQueries({ queryKey: productTypeKeys.all }),
  });
}

/** A change made on the version `ifMatch` (the etag of the product type shown): 412 when someone changed it since. */
export interface ProductTypeWrite<T> {
  body: T;
  ifMatch: string;
}

export function usePatchProductType() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ body, ifMatch }: ProductTypeWrite<ProductTypePatch>) => api.patchProductType(body, { ifMatch }),
    onSuccess: (pt) => {
      qc.setQueryData(productTypeKeys.detail(pt._id), pt);
      void qc.invalidateQueries({ queryKey: productTypeKeys.all });
      void qc.invalidateQueries({ queryKey: DEVICES_KEY });
    },
  });
}

/** Loads the product type again (after a change was refused because someone else changed it). */
export function useReloadProductType(id: string): () => Promise<void> {
  const qc = useQueryClient();
  return useCallback(() => qc.invalidateQueries({ queryKey: productTypeKeys.detail(id) }), [qc, id]);
}

export function useDeleteProductType() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ body: id, ifMatch }: ProductTypeWrite<string>) => api.deleteProductType(id, { ifMatch }),
    onSuccess: (_void, { body: id }) => {
      // Only the list: refetching the deleted type's detail would just answer 404 while the screen leaves.
      qc.removeQueries({ queryKey: productTypeKeys.detail(id) });
      void qc.invalidateQueries({ queryKey: productTypeKeys.list() });
      void qc.invalidateQueries({ queryKey: DEVICES_KEY });
    },
  });
}
