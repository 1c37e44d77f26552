import { DataTable } from "primereact/datatable";
import { Column } from "primereact/column";
import { ColumnGroup } from "primereact/columngroup";
import { Row } from "primereact/row";
import type { ReactNode } from "react";
import { type Channel, maxChannels, type Phase } from "../../../../shared/schemas/treatment.ts";

const SUB_COLUMNS: { header: string; unit?: string; title: string; value: (c: Channel) => string | number }[] = [
  { header: "Current", unit: "mA", title: "Current (mA)", value: (c) => c.current },
  { header: "Freq", unit: "Hz", title: "Frequency (Hz)", value: (c) => c.frequency },
  { header: "Pol", title: "Polarity", value: (c) => c.polarity },
  { header: "tRise", unit: "ms", title: "Rise time (ms)", value: (c) => c.riseTime },
  { header: "tHold", unit: "ms", title: "Hold time (ms)", value: (c) => c.holdTime },
  { header: "tFall", unit: "ms", title: "Fall time (ms)", value: (c) => c.fallTime },
];

type PhaseRow = Phase & { number: number };

/** A header with its unit on a line of its own ("Current" over "mA"); read as "Current (mA)". */
function withUnit(label: string, unit?: string): ReactNode {
  if (!unit) return label;
  return (
    <>
      {label}
      <span className="unit">
        <span className="visually-hidden">(</span>
        {unit}
        <span className="visually-hidden">)</span>
      </span>
    </>
  );
}

const NUMBER_WIDTH = "3rem";
const DURATION_WIDTH = "5.5rem";

/**
 * Read-only grid: '#', 'Duration' and a 'Channel N' column group per channel position, units under the headers.
 * '#' and 'Duration' stay in view while the channels scroll sideways inside the grid; the page itself never scrolls
 * sideways: the specification's width (viewport minus 250px) is the most it takes, less when the content area is narrower.
 */
export function PhaseGrid({ phases }: { phases: readonly Phase[] }) {
  const channelCount = maxChannels(phases);
  const rows: PhaseRow[] = phases.map((p, i) => ({ ...p, number: i + 1 }));
  const positions = Array.from({ length: channelCount }, (_, i) => i);

  const header = (
    <ColumnGroup>
      <Row>
        <Column header="#" rowSpan={2} frozen style={{ minWidth: NUMBER_WIDTH, width: NUMBER_WIDTH }} />
        <Column
          header={withUnit("Duration", "s")}
          rowSpan={2}
          frozen
          headerClassName="frozen-edge"
          style={{ minWidth: DURATION_WIDTH, width: DURATION_WIDTH }}
        />
        {positions.map((n) => <Column key={n} header={`Channel ${n + 1}`} colSpan={SUB_COLUMNS.length} />)}
      </Row>
      <Row>
        {positions.flatMap((n) =>
          SUB_COLUMNS.map((s) => (
            <Column key={`${n}-${s.header}`} header={withUnit(s.header, s.unit)} headerTooltip={s.title} />
          ))
        )}
      </Row>
    </ColumnGroup>
  );

  return (
    <div
      className="phase-grid"
      style={{
        width: "calc(100vw - 250px)",
        height: "max(200px, calc(100vh - 500px))",
        display: "flex",
        flexDirection: "column",
      }}
    >
      <DataTable
        value={rows}
        dataKey="number"
        headerColumnGroup={header}
        scrollable
        scrollHeight="flex"
        size="small"
        showGridlines
        stripedRows
        aria-label="Phases"
        // The scrolling area is reachable from the keyboard (arrow keys scroll it) and says what it holds.
        pt={{ wrapper: { tabIndex: 0, role: "region", "aria-label": "Phase grid, scrollable" } }}
      >
        <Column field="number" frozen style={{ minWidth: NUMBER_WIDTH, width: NUMBER_WIDTH }} />
        <Column
          field="duration"
          frozen
          className="frozen-edge"
          style={{ minWidth: DURATION_WIDTH, width: DURATION_WIDTH }}
        />
        {positions.flatMap((n) =>
          SUB_COLUMNS.map((s) => (
            <Column
              key={`${n}-${s.header}`}
              body={(row: PhaseRow) => {
                const ch = row.channels[n];
                return ch ? s.value(ch) : "";
              }}
            />
          ))
        )}
      </DataTable>
    </div>
  );
}
