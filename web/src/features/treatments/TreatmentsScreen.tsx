import { useMemo, useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { Link, useLocation } from "wouter";
import { DataTable } from "primereact/datatable";
import { Column } from "primereact/column";
import { InputText } from "primereact/inputtext";
import { Button } from "primereact/button";
import type { TreatmentSummary } from "../../../../shared/schemas/treatment.ts";
import { LoadState } from "../../components/LoadState.tsx";
import { formatDateTime } from "../../lib/format.ts";
import { treatmentSummariesQuery } from "./api.ts";
import { filterByName } from "./filter.ts";
import { ImportDialog } from "./ImportDialog.tsx";

const VIRTUAL_FROM = 200;
const ROW_HEIGHT = 41;

/** /treatments: searchable list with the import dialog. */
export default function TreatmentsScreen() {
  const query = useQuery(treatmentSummariesQuery());
  const [, navigate] = useLocation();
  const [search, setSearch] = useState("");
  const [importing, setImporting] = useState(false);
  const all = query.data ?? [];
  const shown = useMemo(() => filterByName(all, search), [all, search]);
  const failed = query.isError;

  return (
    <section style={{ display: "flex", flexDirection: "column", gap: "1rem" }}>
      <h1 style={{ margin: 0 }}>Treatments ({failed ? "-" : shown.length}/{failed ? "-" : all.length})</h1>
      <div style={{ display: "flex", gap: "1rem", alignItems: "center", flexWrap: "wrap" }}>
        <span className="p-input-icon-left">
          <InputText
            type="search"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            placeholder="Search on name"
            aria-label="Search on name"
            autoFocus
            style={{ width: "20rem" }}
          />
        </span>
        <Button label="Import treatments" icon="pi pi-upload" onClick={() => setImporting(true)} />
      </div>
      <LoadState fetching={query.isFetching} error={query.error} onRetry={() => void query.refetch()} />
      {/* A failed load shows only the error: no stale rows and no empty text. */}
      {!failed && (
        <DataTable
          value={shown}
          dataKey="_id"
          scrollable
          scrollHeight="calc(100vh - 280px)"
          size="small"
          stripedRows
          rowHover
          onRowClick={(e) => navigate(`/treatments/${encodeURIComponent((e.data as TreatmentSummary)._id)}`)}
          className="clickable-rows"
          // Thousands of imported treatments stay fast: only the visible rows are rendered.
          virtualScrollerOptions={shown.length > VIRTUAL_FROM ? { itemSize: ROW_HEIGHT } : undefined}
          emptyMessage={query.isPending ? " " : "No treatments found"}
        >
          <Column
            header="Name"
            field="name"
            body={(t: TreatmentSummary) => (
              <Link
                className="cell-link"
                href={`/treatments/${encodeURIComponent(t._id)}`}
                onClick={(e) => e.stopPropagation()}
              >
                {t.name}
              </Link>
            )}
          />
          <Column header="Channels" field="channels" />
          <Column header="Phases" field="phases" />
          <Column header="Images" field="images" />
          <Column header="Category" body={(t: TreatmentSummary) => t.category ?? "-"} />
          <Column header="Updated" body={(t: TreatmentSummary) => formatDateTime(t.updatedAt)} />
        </DataTable>
      )}
      <ImportDialog visible={importing} onHide={() => setImporting(false)} />
    </section>
  );
}
