import type { CSSProperties, ReactNode } from "react";

/** A two-column label/value table (class `info-table`), one row a pair. */
export function InfoTable({ rows, style }: { rows: readonly [string, ReactNode][]; style?: CSSProperties }) {
  return (
    <table className="info-table" style={style}>
      <tbody>
        {rows.map(([label, value]) => (
          <tr key={label}>
            <th scope="row">{label}</th>
            <td>{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
