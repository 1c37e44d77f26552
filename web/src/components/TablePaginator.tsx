export interface TablePaginatorProps {
  /** Zero-based page shown. */
  page: number;
  /** Rows per page. */
  rows: number;
  totalRecords: number;
  rowsPerPageOptions: readonly number[];
  /** Called with the page to show; a new page size always starts at page 0. */
  onPageChange: (next: { page: number; rows: number }) => void;
  /** Page links shown around the current page (PrimeReact's default). */
  pageLinkSize?: number;
}

const cls = (...names: (string | false)[]) => names.filter(Boolean).join(" ");

/**
 * PrimeReact's Paginator ("FirstPageLink PrevPageLink PageLinks NextPageLink LastPageLink RowsPerPageDropdown
 * CurrentPageReport" with the report "{first}-{last} of {totalRecords}"), rebuilt on its own CSS classes and aria
 * labels: same look and behaviour without its jump-to-page input and its icon modules (see docs/WEB.md, page size).
 * The page size is a native select (the devices page renders this paginator with every update of its list: a
 * PrimeReact Dropdown there cost a phone ~10 ms each time).
 */
export function TablePaginator(
  { page, rows, totalRecords, rowsPerPageOptions, onPageChange, pageLinkSize = 5 }: TablePaginatorProps,
) {
  const totalPages = Math.ceil(totalRecords / rows);
  const empty = totalPages === 0;
  const atStart = page === 0 || empty;
  const atEnd = page >= totalPages - 1 || empty;

  // PrimeReact's calculatePageLinkBoundaries: keep the current page in the middle when possible.
  const visible = Math.min(pageLinkSize, totalPages);
  let start = Math.max(0, Math.ceil(page - visible / 2));
  const end = Math.min(totalPages - 1, start + visible - 1);
  start = Math.max(0, start - (pageLinkSize - (end - start + 1)));
  const links: number[] = [];
  for (let i = start; i <= end; i++) links.push(i);

  const go = (p: number) => {
    if (p >= 0 && p < totalPages && p !== page) onPageChange({ page: p, rows });
  };
  const nav = (kind: "first" | "prev" | "next" | "last", label: string, icon: string, target: number, off: boolean) => (
    <button
      type="button"
      className={cls(`p-paginator-${kind} p-paginator-element p-link`, off && "p-disabled")}
      aria-label={label}
      disabled={off}
      onClick={() => go(target)}
    >
      <span className={`p-paginator-icon pi ${icon}`} aria-hidden="true" />
    </button>
  );

  const first = Math.min(page * rows + 1, totalRecords);
  const last = Math.min(page * rows + rows, totalRecords);
  return (
    <div className="p-paginator-bottom p-paginator p-component">
      {nav("first", "First Page", "pi-angle-double-left", 0, atStart)}
      {nav("prev", "Previous Page", "pi-angle-left", page - 1, atStart)}
      <span className="p-paginator-pages">
        {links.map((p) => (
          <button
            key={p}
            type="button"
            className={cls(
              "p-paginator-page p-paginator-element p-link",
              p === start && "p-paginator-page-start",
              p === end && "p-paginator-page-end",
              p === page && "p-highlight",
            )}
            aria-label={`Page ${p + 1}`}
            aria-current={p === page ? "true" : undefined}
            onClick={() => go(p)}
          >
            {p + 1}
          </button>
        ))}
      </span>
      {nav("next", "Next Page", "pi-angle-right", page + 1, atEnd)}
      {nav("last", "Last Page", "pi-angle-double-right", totalPages - 1, atEnd)}
      <select
        className="p-inputtext p-component p-paginator-rpp-options"
        value={rows}
        aria-label="Rows per page"
        onChange={(e) => {
          const next = Number(e.target.value);
          if (next !== rows) onPageChange({ page: 0, rows: next });
        }}
      >
        {rowsPerPageOptions.map((n) => <option key={n} value={n}>{n}</option>)}
      </select>
      <span className="p-paginator-current" aria-live="polite">{`${first}-${last} of ${totalRecords}`}</span>
    </div>
  );
}
