import type { AuditEntry } from "../../../../shared/schemas/audit.ts";
import { Skeleton, skeletonWidth } from "../../components/Skeleton.tsx";
import { formatDateTime } from "../../lib/format.ts";
import { actorText, detailsText, targetText } from "./queries.ts";

interface Column {
  header: string;
  width?: string;
  body: (e: AuditEntry) => string;
}

const ALL_COLUMNS: Column[] = [
  { header: "Time", width: "16.5rem", body: (e) => formatDateTime(e.at) },
  { header: "Actor", width: "13rem", body: actorText },
  { header: "Action", width: "12rem", body: (e) => e.action },
  { header: "Target", width: "13rem", body: targetText },
  { header: "Details", body: detailsText },
  { header: "IP address", width: "8rem", body: (e) => e.ip ?? "-" },
];

/**
 * Audit entries as a plain table on DataTable's classes (as the devices list): newest first, each cell one line with
 * its full text as a tooltip. `compact` leaves the target and the address out (the history of one entity).
 */
export function AuditTable(
  { entries, pending, rows, label, compact, stale }: {
    entries: AuditEntry[];
    pending: boolean;
    rows: number;
    label: string;
    compact?: boolean;
    stale?: boolean;
  },
) {
  const columns = compact ? ALL_COLUMNS.filter((c) => c.header !== "Target" && c.header !== "IP address") : ALL_COLUMNS;
  return (
    <div className="p-datatable p-component p-datatable-responsive-scroll p-datatable-striped p-datatable-sm">
      {/* Focusable: on a narrow screen the table scrolls sideways, and the keyboard must be able to scroll it. */}
      <div className="p-datatable-wrapper" tabIndex={0} role="region" aria-label={`${label} (scrolls)`}>
        <table
          className={`p-datatable-table${stale ? " stale-rows" : ""}`}
          aria-label={label}
          aria-busy={pending || stale}
          style={{ tableLayout: "fixed", minWidth: compact ? "40rem" : "70rem" }}
        >
          <colgroup>
            {columns.map((c) => <col key={c.header} style={c.width ? { width: c.width } : undefined} />)}
          </colgroup>
          <thead className="p-datatable-thead">
            <tr>
              {columns.map((c) => (
                <th key={c.header} scope="col">
                  <div className="p-column-header-content">
                    <span className="p-column-title">{c.header}</span>
                  </div>
                </th>
              ))}
            </tr>
          </thead>
          <tbody className="p-datatable-tbody">
            {pending
              ? Array.from({ length: rows }, (_, i) => (
                <tr key={i} className={i % 2 ? "p-row-odd" : undefined}>
                  {columns.map((c, j) => (
                    <td key={c.header}>
                      <Skeleton width={skeletonWidth(i, j)} />
                    </td>
                  ))}
                </tr>
              ))
              : entries.length === 0
              ? (
                <tr className="p-datatable-emptymessage">
                  <td colSpan={columns.length}>No entries found.</td>
                </tr>
              )
              : entries.map((e, i) => (
                <tr key={e._id} className={i % 2 ? "p-row-odd" : undefined} data-seq={e.seq}>
                  {columns.map((c) => {
                    const text = c.body(e);
                    return (
                      <td key={c.header} className="nowrap ellipsis" title={text}>
                        {text}
                      </td>
                    );
                  })}
                </tr>
              ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
