import * as z from "zod";
import { ProductType, ProductTypeCreate, ProductTypePatch } from "../schemas/product_type.ts";
import { IdParams } from "./params.ts";
import { empty, errors, etagHeader, ifMatch, json, noBody, route } from "./route.ts";

export const productTypeRoutes = {
  listProductTypes: route({
    name: "listProductTypes",
    method: "GET",
    path: "/product_types",
    auth: "operator",
    summary: "The product types with their modules.",
    body: noBody,
    answers: { 200: json(z.array(ProductType)), ...errors(401) },
  }),
  createProductType: route({
    name: "createProductType",
    method: "POST",
    path: "/product_types",
    auth: "operator",
    scope: "product_types:write",
    summary: "Create a product type (names are unique, ignoring case).",
    body: json(ProductTypeCreate),
    answers: { 201: json(ProductType, etagHeader), ...errors(400, 401, 409, 413, 415) },
  }),
  getProductType: route({
    name: "getProductType",
    method: "GET",
    path: "/product_types/:id",
    auth: "operator",
    summary: "One product type.",
    params: IdParams,
    body: noBody,
    answers: { 200: json(ProductType, etagHeader), ...errors(400, 401, 404) },
  }),
  patchProductType: route({
    name: "patchProductType",
    method: "PATCH",
    path: "/product_types/:id",
    auth: "operator",
    scope: "product_types:write",
    summary: "Rename a product type, set its theme and replace its module list.",
    params: IdParams,
    headers: ifMatch,
    body: json(ProductTypePatch),
    answers: { 200: json(ProductType, etagHeader), ...errors(400, 401, 404, 409, 412, 413, 415) },
  }),
  deleteProductType: route({
    name: "deleteProductType",
    method: "DELETE",
    path: "/product_types/:id",
    auth: "operator",
    scope: "product_types:write",
    summary: "Delete a product type; its devices keep no product type.",
    params: IdParams,
    headers: ifMatch,
    body: noBody,
    answers: { 204: empty, ...errors(400, 401, 404, 412) },
  }),
};
