/** The states of a rollout over time: PrimeReact's Chart over chart.js, both loaded with this module (lazy). */
import { Chart } from "primereact/chart";
import type { RolloutHistoryPoint } from "../../../../shared/schemas/rollout.ts";

const time = (iso: string) => iso.slice(11, 16);

export default function RolloutChart({ points }: { points: RolloutHistoryPoint[] }) {
  const labels = points.map((p) => `${p.at.slice(5, 10)} ${time(p.at)}`);
  const data = {
    labels,
    datasets: [
      { label: "Installed", data: points.map((p) => p.installed), borderColor: "#1f7a3d", backgroundColor: "#1f7a3d" },
      { label: "Failed", data: points.map((p) => p.failed), borderColor: "#b3261e", backgroundColor: "#b3261e" },
      {
        label: "In progress",
        data: points.map((p) => p.downloading + p.installing),
        borderColor: "#1b5fa8",
        backgroundColor: "#1b5fa8",
      },
      {
        label: "In stage",
        data: points.map((p) => p.inStage),
        borderColor: "#6b6b6b",
        backgroundColor: "#6b6b6b",
        borderDash: [6, 4],
      },
    ],
  };
  const options = {
    maintainAspectRatio: false,
    animation: false,
    plugins: { legend: { position: "bottom" } },
    scales: { y: { beginAtZero: true, ticks: { precision: 0 } } },
  };
  const last = points.at(-1);
  const summary = last
    ? `States over time, ${points.length} points; last at ${
      time(last.at)
    } UTC: ${last.installed} installed, ${last.failed} failed, ${
      last.downloading + last.installing
    } in progress of ${last.inStage} in stage`
    : "States over time: no reports yet";
  return (
    <div className="rollout-chart" data-testid="rollout-chart">
      <Chart type="line" data={data} options={options} ariaLabel={summary} style={{ height: "100%" }} />
    </div>
  );
}
