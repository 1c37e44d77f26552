import { Fragment, useState } from "react";
import type { AuditEntry } from "../../../../shared/schemas/audit.ts";
import { Skeleton, skeletonWidth } from "../../components/Skeleton.tsx";
import { formatDateTime } from "../../lib/format.ts";
import { actionText, detailLines, detailsSummary, type Names } from "./describe.ts";
import { actorText, targetText } from "./queries.ts";

interface Column {
  header: string;
  width?: string;
  body: (e: AuditEntry, names: Names) => string;
  /** Wraps (names and details are never cut); else one line cut with an ellipsis, its text as a tooltip. */
  wrap?: boolean;
}

// Shares of the width, so the details keep a third of it whatever the screen.
const ALL_COLUMNS: Column[] = [
  { header: "Time", width: "17%", body: (e) => formatDateTime(e.at) },
  { header: "Actor", width: "14%", body: actorText, wrap: true },
  { header: "Action", width: "12%", body: (e) => actionText(e.action), wrap: true },
  { header: "Target", width: "14%", body: targetText, wrap: true },
  { header: "Details", body: detailsSummary, wrap: true },
  { header: "IP address", width: "9%", body: (e) => e.ip ?? "-" },
];
const COMPACT_WIDTHS: Record<string, string> = { Time: "23%", Actor: "16%", Action: "15%", Target: "16%" };

/**
 * Audit entries as a plain table on DataTable's classes (as the devices list), newest first, in words: the action's
 * name, the target by name, the details as names and values (docs/REQUIREMENTS.md §17). A row opens to the entry's full details
 * (a click on the row, or Enter / Space on its first cell's button). `compact` leaves the address out (the history of
 * one entity).
 */
export function AuditTable(
  { entries, pending, rows, label, compact, stale, names = {} }: {
    entries: AuditEntry[];
    pending: boolean;
    rows: number;
    label: string;
    compact?: boolean;
    stale?: boolean;
    names?: Names;
  },
) {
  const columns = compact ? ALL_COLUMNS.filter((c) => c.header !== "IP address") : ALL_COLUMNS;
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const toggle = (id: string) =>
    setOpen((s) => {
      const next = new Set(s);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  return (
    <div className="p-datatable p-component p-datatable-responsive-scroll p-datatable-striped p-datatable-sm">
      {/* Focusable: on a narrow screen the table scrolls sideways, and the keyboard must be able to scroll it. */}
      <div className="p-datatable-wrapper" tabIndex={0} role="region" aria-label={`${label} (scrolls)`}>
        <table
          className={`p-datatable-table${stale ? " stale-rows" : ""}`}
          aria-label={label}
          aria-busy={pending || stale}
          style={{ tableLayout: "fixed", minWidth: compact ? "52rem" : "72rem" }}
        >
          <colgroup>
            {columns.map((c) => {
              const width = compact ? COMPACT_WIDTHS[c.header] : c.width;
              return <col key={c.header} style={width ? { width } : undefined} />;
            })}
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
              : entries.map((e, i) => {
                const expanded = open.has(e._id);
                return (
                  <Fragment key={e._id}>
                    <tr
                      className={`audit-row${i % 2 ? " p-row-odd" : ""}`}
                      data-seq={e.seq}
                      onClick={() => toggle(e._id)}
                    >
                      {columns.map((c, j) => {
                        const text = c.body(e, names);
                        if (c.wrap) return <td key={c.header} className="audit-wrap">{text}</td>;
                        return (
                          <td key={c.header} className="nowrap ellipsis" title={text}>
                            {j === 0
                              ? (
                                // The row's disclosure: a click anywhere on the row, or Enter / Space here (the click
                                // bubbles to the row).
                                <button
                                  type="button"
                                  className="audit-open"
                                  aria-expanded={expanded}
                                  aria-label={`${text}, ${actionText(e.action)}, ${targetText(e)}: ${
                                    expanded ? "hide" : "show"
                                  } the full details`}
                                >
                                  <i
                                    className={`pi ${expanded ? "pi-chevron-down" : "pi-chevron-right"}`}
                                    aria-hidden
                                  />
                                  {text}
                                </button>
                              )
                              : text}
                          </td>
                        );
                      })}
                    </tr>
                    {expanded && (
                      <tr className={`audit-detail-row${i % 2 ? " p-row-odd" : ""}`}>
                        <td colSpan={columns.length}>
                          <EntryDetails entry={e} names={names} />
                        </td>
                      </tr>
                    )}
                  </Fragment>
                );
              })}
          </tbody>
        </table>
      </div>
    </div>
  );
}

/** One entry whole: every field in words, the details line by line, and the data as recorded (what the hash covers). */
function EntryDetails({ entry: e, names }: { entry: AuditEntry; names: Names }) {
  const lines = detailLines(e, names);
  return (
    <dl className="audit-entry" aria-label={`Entry ${e.seq}`}>
      <dt>Entry</dt>
      <dd>No. {e.seq}</dd>
      <dt>Time</dt>
      <dd>{formatDateTime(e.at)} ({e.at})</dd>
      <dt>Actor</dt>
      <dd>{actorText(e)}</dd>
      <dt>Action</dt>
      <dd>{actionText(e.action)} ({e.action})</dd>
      <dt>Target</dt>
      <dd>{targetText(e)}</dd>
      <dt>IP address</dt>
      <dd>{e.ip ?? "-"}</dd>
      <dt>Details</dt>
      <dd>
        {lines.length ? <ul>{lines.map((l, i) => <li key={i}>{l}</li>)}</ul> : "-"}
      </dd>
      <dt>Recorded data</dt>
      <dd>
        <pre>{JSON.stringify({ actor: e.actor, target: e.target, details: e.details }, null, 2)}</pre>
      </dd>
      <dt>Hash</dt>
      <dd>{e.hash}</dd>
    </dl>
  );
}
