import { DataTable } from "primereact/datatable";
import { Column } from "primereact/column";
import { ColumnGroup } from "primereact/columngroup";
import { Row } from "primereact/row";
import { type Channel, maxChannels, type Phase } from "../../../../shared/schemas/treatment.ts";

const SUB_COLUMNS: { header: string; title: string; value: (c: Channel) => string | number }[] = [
  { header: "Current", title: "Current (mA)", value: (c) => c.current },
  { header: "Freq", title: "Frequency (Hz)", value: (c) => c.frequency },
  { header: "Pol", title: "Polarity", value: (c) => c.polarity },
  { header: "tRise", title: "Rise time (ms)", value: (c) => c.riseTime },
  { header: "tHold", title: "Hold time (ms)", value: (c) => c.holdTime },
  { header: "tFall", title: "Fall time (ms)", value: (c) => c.fallTime },
];

type PhaseRow = Phase & { number: number };

/** Read-only grid: '#', 'Duration' and a 'Channel N' column group per channel position. */
export function PhaseGrid({ phases }: { phases: readonly Phase[] }) {
  const channelCount = maxChannels(phases);
  const rows: PhaseRow[] = phases.map((p, i) => ({ ...p, number: i + 1 }));
  const positions = Array.from({ length: channelCount }, (_, i) => i);

  const header = (
    <ColumnGroup>
      <Row>
        <Column header="#" rowSpan={2} />
        <Column header="Duration" rowSpan={2} headerTooltip="Duration (s)" />
        {positions.map((n) => <Column key={n} header={`Channel ${n + 1}`} colSpan={SUB_COLUMNS.length} />)}
      </Row>
      <Row>
        {positions.flatMap((n) =>
          SUB_COLUMNS.map((s) => <Column key={`${n}-${s.header}`} header={s.header} headerTooltip={s.title} />)
        )}
      </Row>
    </ColumnGroup>
  );

  return (
    <div
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
      >
        <Column field="number" />
        <Column field="duration" />
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
