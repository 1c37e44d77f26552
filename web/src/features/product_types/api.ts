import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import type { ProductTypePatch } from "../../../../shared/schemas/mod.ts";
import { api } from "../../lib/api.ts";
import { deviceKeys } from "../devices/api.ts";

export const productTypeKeys = {
  all: ["product_types"] as const,
  list: () => [...productTypeKeys.all, "list"] as const,
  detail: (id: string) => [...productTypeKeys.all, "detail", id] as const,
};

/** Product type changes can clear devices' product type or module ids (CONTRACT §5): devices refetch too. */
const DEVICES_KEY = deviceKeys.all;

export const productTypesQuery = () =>
  queryOptions({ queryKey: productTypeKeys.list(), queryFn: () => api.listProductTypes() });

/** SPEC §4: product type detail refetches on opening. */
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

export function usePatchProductType() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: ProductTypePatch) => api.patchProductType(body),
    onSuccess: (pt) => {
      qc.setQueryData(productTypeKeys.detail(pt._id), pt);
      void qc.invalidateQueries({ queryKey: productTypeKeys.all });
      void qc.invalidateQueries({ queryKey: DEVICES_KEY });
    },
  });
}

export function useDeleteProductType() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.deleteProductType(id),
    onSuccess: (_void, id) => {
      // Only the list: refetching the deleted type's detail would just answer 404 while the screen leaves.
      qc.removeQueries({ queryKey: productTypeKeys.detail(id) });
      void qc.invalidateQueries({ queryKey: productTypeKeys.list() });
      void qc.invalidateQueries({ queryKey: DEVICES_KEY });
    },
  });
}
