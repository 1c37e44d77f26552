import { type ReactNode, useEffect, useMemo, useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { Link, useLocation, useSearch } from "wouter";
import { DataTable } from "primereact/datatable";
import { Column } from "primereact/column";
import { InputText } from "primereact/inputtext";
import { Button } from "primereact/button";
import type { TreatmentSummary } from "../../../../shared/schemas/treatment.ts";
import { LoadState } from "../../components/LoadState.tsx";
import { Skeleton, skeletonWidth } from "../../components/Skeleton.tsx";
import { formatDateTime } from "../../lib/format.ts";
import { useRole } from "../../lib/role.ts";
import { treatmentSummariesQuery } from "./api.ts";
import { filterByName } from "./filter.ts";
import { ImportDialog } from "./ImportDialog.tsx";

const VIRTUAL_FROM = 200;
const ROW_HEIGHT = 41;
/** Rows shown while the list loads, so the table has its height from the start. */
const SKELETON_ROWS = Array.from({ length: 12 }, (_, i) => ({ _id: `skeleton-${i}`, row: i }));
type Row = TreatmentSummary | (typeof SKELETON_ROWS)[number];
const isSkeleton = (r: Row): r is (typeof SKELETON_ROWS)[number] => "row" in r;
/** A cell's text, or a skeleton bar while the list loads. */
const cell = (column: number, text: (t: TreatmentSummary) => ReactNode) => (r: Row) =>
  isSkeleton(r) ? <Skeleton width={skeletonWidth(r.row, column)} /> : text(r);

/** The search as the URL keeps it (`?q=`), so Back from a treatment finds the list as it was left. */
function searchOf(query: string): string {
  return new URLSearchParams(query).get("q") ?? "";
}

/** /treatments: searchable list with the import dialog. */
export default function TreatmentsScreen() {
  const query = useQuery(treatmentSummariesQuery());
  const [, navigate] = useLocation();
  const urlSearch = searchOf(useSearch());
  const [search, setSearch] = useState(urlSearch);
  // Back and forward bring their search along. Each keystroke replaces the URL's entry at once (no history entry per
  // keystroke, and nothing pending that could land after a row click has left the list).
  useEffect(() => setSearch(urlSearch), [urlSearch]);
  const changeSearch = (text: string) => {
    setSearch(text);
    navigate(`/treatments${text ? `?q=${encodeURIComponent(text)}` : ""}`, { replace: true });
  };
  const [importing, setImporting] = useState(false);
  const { canWrite } = useRole();
  const all = query.data ?? [];
  const shown = useMemo(() => filterByName(all, search), [all, search]);
  const failed = query.isError;
  // Counts read '-' until there is a list to count: while loading as after a failure, never a false "0".
  const count = (n: number) => (query.data && !failed ? n : "-");

  return (
    <section style={{ display: "flex", flexDirection: "column", gap: "1rem" }}>
      <h1 style={{ margin: 0 }}>Treatments ({count(shown.length)}/{count(all.length)})</h1>
      <div style={{ display: "flex", gap: "1rem", alignItems: "center", flexWrap: "wrap" }}>
        <span className="p-input-icon-left">
          <InputText
            type="search"
            value={search}
            onChange={(e) => changeSearch(e.target.value)}
            placeholder="Search on name"
            aria-label="Search on name"
            autoFocus
            style={{ width: "20rem" }}
          />
        </span>
        <Button
          label="Import treatments"
          icon="pi pi-upload"
          disabled={!canWrite}
          onClick={() => setImporting(true)}
        />
      </div>
      <LoadState fetching={query.isFetching} error={query.error} onRetry={() => void query.refetch()} />
      {/* A failed load shows only the error: no stale rows and no empty text. */}
      {!failed && (
        <DataTable
          value={query.isPending ? SKELETON_ROWS : shown}
          aria-busy={query.isPending}
          dataKey="_id"
          scrollable
          scrollHeight="calc(100vh - 280px)"
          size="small"
          stripedRows
          rowHover
          onRowClick={(e) => {
            const r = e.data as Row;
            if (!isSkeleton(r)) navigate(`/treatments/${encodeURIComponent(r._id)}`);
          }}
          className="clickable-rows"
          // Thousands of imported treatments stay fast: only the visible rows are rendered.
          virtualScrollerOptions={shown.length > VIRTUAL_FROM ? { itemSize: ROW_HEIGHT } : undefined}
          emptyMessage={query.isPending ? " " : "No treatments found"}
        >
          <Column
            header="Name"
            field="name"
            body={cell(0, (t) => (
              <Link
                className="cell-link"
                href={`/treatments/${encodeURIComponent(t._id)}`}
                onClick={(e) => e.stopPropagation()}
              >
                {t.name}
              </Link>
            ))}
          />
          <Column header="Channels" body={cell(1, (t) => t.channels)} />
          <Column header="Phases" body={cell(2, (t) => t.phases)} />
          <Column header="Images" body={cell(3, (t) => t.images)} />
          <Column header="Category" body={cell(4, (t) => t.category ?? "-")} />
          <Column header="Updated" body={cell(5, (t) => formatDateTime(t.updatedAt))} />
        </DataTable>
      )}
      <ImportDialog visible={importing} onHide={() => setImporting(false)} />
    </section>
  );
}
