import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { Link, useLocation } from "wouter";
import { DataTable } from "primereact/datatable";
import { Column } from "primereact/column";
import { Button } from "primereact/button";
import type { ProductType } from "../../../../shared/schemas/product_type.ts";
import { LoadState } from "../../components/LoadState.tsx";
import { formatDateTime } from "../../lib/format.ts";
import { useNotify, useNotifyError } from "../../lib/notify.ts";
import { useRole } from "../../lib/role.ts";
import { productTypesQuery, useCreateProductType } from "./api.ts";
import { NameDialog } from "../../components/NameDialog.tsx";
import { nameErrorOf } from "../../lib/nameError.ts";

const href = (id: string) => `/product_types/${encodeURIComponent(id)}`;

/** /product_types: list with count and the add dialog. */
export default function ProductTypesScreen() {
  const query = useQuery(productTypesQuery());
  const create = useCreateProductType();
  const notify = useNotify();
  const notifyError = useNotifyError();
  const [, navigate] = useLocation();
  const [adding, setAdding] = useState(false);
  const { canWrite } = useRole();
  const [nameError, setNameError] = useState<string | null>(null);
  const types = query.data ?? [];
  const failed = query.isError;

  return (
    <section style={{ display: "flex", flexDirection: "column", gap: "1rem" }}>
      <div style={{ display: "flex", alignItems: "center", gap: "1rem" }}>
        <h1 style={{ margin: 0 }}>Product types ({failed ? "-" : types.length})</h1>
        <Button
          icon="pi pi-plus"
          rounded
          aria-label="Add product type"
          tooltip="Add product type"
          tooltipOptions={{ position: "right" }}
          disabled={!canWrite}
          onClick={() => setAdding(true)}
        />
      </div>
      <LoadState fetching={query.isFetching} error={query.error} onRetry={() => void query.refetch()} />
      {/* A failed load shows only the error: no stale rows and no empty text. */}
      {!failed && (
        <DataTable
          value={types}
          dataKey="_id"
          scrollable
          scrollHeight="calc(100vh - 250px)"
          size="small"
          stripedRows
          rowHover
          onRowClick={(e) => navigate(href((e.data as ProductType)._id))}
          className="clickable-rows"
          emptyMessage={query.isPending ? " " : "No product types present"}
        >
          <Column
            header="Name"
            body={(pt: ProductType) => (
              <Link
                className="cell-link"
                href={href(pt._id)}
                onClick={(e) => e.stopPropagation()}
              >
                {pt.name}
              </Link>
            )}
          />
          <Column header="Updated" body={(pt: ProductType) => formatDateTime(pt.updatedAt)} />
        </DataTable>
      )}
      <NameDialog
        visible={adding}
        header="Add product type"
        placeholder="Enter name for product type"
        busy={create.isPending}
        error={nameError}
        onHide={() => {
          setAdding(false);
          setNameError(null);
        }}
        onSubmit={(name) => {
          setNameError(null);
          create.mutate(name, {
            onSuccess: (pt) => {
              setAdding(false);
              notify("Product type added", pt.name);
            },
            onError: (err) => {
              const text = nameErrorOf(err, (path) => path === "name");
              if (text) setNameError(text);
              else notifyError(err);
            },
          });
        }}
      />
    </section>
  );
}
