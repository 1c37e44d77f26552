import { memo } from "react";
import type { Device, DeviceSort } from "../../../../shared/schemas/mod.ts";
import { Skeleton, skeletonWidth } from "../../components/Skeleton.tsx";
import type { DeviceColumn, Names } from "./columns.tsx";
import type { DeviceSelection } from "./selection.ts";

export interface DevicesTableProps {
  /** The page's devices; undefined while the first page loads (skeleton rows of the page's size). */
  rows: Device[] | undefined;
  /** The rows are the previous view's while the next one loads. */
  stale: boolean;
  columns: DeviceColumn[];
  names: Names;
  /** Index of the page's first row in the view (stripes continue across pages). */
  offset: number;
  size: number;
  sort: DeviceSort;
  order: "asc" | "desc";
  selection: DeviceSelection;
  onSort: (key: DeviceSort) => void;
  onToggle: (id: string, on: boolean) => void;
  onTogglePage: (on: boolean, pageIds: string[]) => void;
  onOpen: (id: string) => void;
}

/** The table scrolls within `100vh - 16rem` (styles.css, .devices-table); a row is at least 32 px tall. */
const skeletonRows = (size: number) =>
  Math.min(size, Math.ceil(Math.max(0, (globalThis.innerHeight ?? Infinity) - 16 * 16) / 32) + 1);

/**
 * The devices table: a plain <table> on PrimeReact's DataTable classes (same look) instead of DataTable itself, which
 * alone weighs 150 KB minified. Memoized with stable props, so the screen's many small updates (a query starting, a
 * count arriving) do not render every row again; the screen passes its rows through useDeferredValue, so a new page
 * renders in slices the browser can interrupt.
 */
export const DevicesTable = memo(function DevicesTable(
  { rows, stale, columns, names, offset, size, sort, order, selection, onSort, onToggle, onTogglePage, onOpen }:
    DevicesTableProps,
) {
  const picked = selection.kind === "ids" ? new Set(selection.ids) : null;
  const isPicked = (id: string) => picked === null || picked.has(id);
  const pageIds = (rows ?? []).map((d) => d.deviceId);
  const allOnPage = pageIds.length > 0 && pageIds.every(isPicked);
  const ariaSort = (c: DeviceColumn) =>
    c.sort === undefined ? undefined : sort === c.sort ? (order === "asc" ? "ascending" : "descending") : "none";

  return (
    <div className="p-datatable-wrapper">
      <table
        className={`p-datatable-table${stale ? " stale-rows" : ""}`}
        aria-label="Devices"
        aria-busy={rows === undefined || stale}
        style={{ tableLayout: "fixed", minWidth: `${10 + columns.length * 9}rem` }}
      >
        <colgroup>
          <col style={{ width: "3rem" }} />
          {columns.map((c) => <col key={c.id} style={c.width ? { width: c.width } : undefined} />)}
        </colgroup>
        <thead className="p-datatable-thead">
          <tr>
            <th scope="col" className="select-cell">
              <input
                type="checkbox"
                aria-label="Select all devices on this page"
                checked={allOnPage}
                disabled={pageIds.length === 0}
                onChange={(e) => onTogglePage(e.target.checked, pageIds)}
              />
            </th>
            {columns.map((c) => (
              <th key={c.id} scope="col" aria-sort={ariaSort(c)}>
                <div className="p-column-header-content">
                  {c.sort
                    ? (
                      <button type="button" className="sort-button" onClick={() => onSort(c.sort!)}>
                        <span className="p-column-title">{c.header}</span>
                        <i
                          aria-hidden="true"
                          className={`pi ${
                            sort !== c.sort
                              ? "pi-sort-alt"
                              : order === "asc"
                              ? "pi-sort-amount-up-alt"
                              : "pi-sort-amount-down"
                          }`}
                        />
                      </button>
                    )
                    : <span className="p-column-title">{c.header}</span>}
                </div>
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="p-datatable-tbody">
          {rows === undefined
            // Skeleton rows hold the table's height, so the paginator does not move: as many as the page has, or as
            // fill the table's scrolling area (at most the window's height) if that is fewer.
            ? Array.from(
              { length: skeletonRows(size) },
              (_, i) => (
                <tr key={i} className={i % 2 ? "p-row-odd" : undefined}>
                  <td />
                  {columns.map((c, j) => (
                    <td key={c.id}>
                      <Skeleton width={skeletonWidth(i, j)} />
                    </td>
                  ))}
                </tr>
              ),
            )
            : rows.length === 0
            ? (
              <tr className="p-datatable-emptymessage">
                <td colSpan={columns.length + 1}>No devices found.</td>
              </tr>
            )
            : rows.map((d, i) => (
              // The Device ID link is the keyboard's way in; the whole row answers the mouse.
              <tr
                key={d.deviceId}
                className={(offset + i) % 2 ? "p-row-odd" : undefined}
                aria-selected={isPicked(d.deviceId)}
                onClick={() => onOpen(d.deviceId)}
              >
                <td className="select-cell" onClick={(e) => e.stopPropagation()}>
                  <input
                    type="checkbox"
                    aria-label={`Select ${d.deviceId}`}
                    checked={isPicked(d.deviceId)}
                    onChange={(e) => onToggle(d.deviceId, e.target.checked)}
                  />
                </td>
                {columns.map((c) => (
                  <td key={c.id} className={c.nowrap ? "nowrap ellipsis" : undefined}>
                    {c.body(d, names)}
                  </td>
                ))}
              </tr>
            ))}
        </tbody>
      </table>
    </div>
  );
});
