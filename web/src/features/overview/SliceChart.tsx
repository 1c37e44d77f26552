/** A chart of overview slices (PrimeReact's Chart over chart.js, both loaded with this module); a click opens a slice. */
import { Chart } from "primereact/chart";
import { useLocation } from "wouter";
import { type Slice, SLICE_COLORS } from "./slices.ts";

export default function SliceChart(
  { title, type, slices }: { title: string; type: "doughnut" | "bar"; slices: Slice[] },
) {
  const [, navigate] = useLocation();
  const colors = slices.map((_, i) => SLICE_COLORS[i % SLICE_COLORS.length]);
  const data = {
    labels: slices.map((s) => s.label),
    datasets: [{ label: "Devices", data: slices.map((s) => s.devices), backgroundColor: colors }],
  };
  const options = {
    maintainAspectRatio: false,
    animation: false,
    plugins: { legend: { display: type === "doughnut", position: "right" } },
    onClick: (_event: unknown, elements: { index: number }[]) => {
      const slice = elements[0] && slices[elements[0].index];
      if (slice?.href) navigate(slice.href);
    },
    onHover: (event: { native?: { target?: HTMLElement } }, elements: unknown[]) => {
      const target = event.native?.target;
      if (target) target.style.cursor = elements.length ? "pointer" : "default";
    },
  };
  const summary = `${title}: ${slices.map((s) => `${s.label} ${s.devices}`).join(", ")}`;
  return (
    <div className="overview-chart" data-testid={`chart-${type}`}>
      <Chart type={type} data={data} options={options} ariaLabel={summary} style={{ height: "100%" }} />
    </div>
  );
}
