import type { Rollout, RolloutStage } from "../../../../shared/schemas/rollout.ts";
import { shares, stageFigures, stageLabel } from "./effects.ts";

/**
 * One bar per stage: its devices (cumulative) split into installed (green), failed (red) and pending (hatched): a
 * stage with pending devices is never drawn full. With `compact` off each bar has its numbers beside it.
 */
export function StageBars({ rollout: r, stages, compact }: {
  rollout: Rollout;
  stages: readonly RolloutStage[] | undefined;
  compact?: boolean;
}) {
  const figures = stageFigures(r, stages);
  return (
    <ol className={`stage-bars${compact ? " compact" : ""}`} aria-label={`Stages of ${r.name}`}>
      {figures.map((f) => {
        const label = stageLabel(f);
        const w = shares(f);
        return (
          <li key={f.stage} className={`stage-bar ${f.state}${f.known ? "" : " unknown"}`} title={label}>
            {!compact && <span className="stage-label">{f.percent} %</span>}
            <span className="stage-track" role="img" aria-label={label}>
              <span className="stage-installed" style={{ width: `${w.installed}%` }} />
              <span className="stage-failed" style={{ width: `${w.failed}%` }} />
              <span className="stage-pending" style={{ width: `${w.pending}%` }} />
            </span>
            {!compact && (
              <span className="stage-numbers">
                {f.state === "ahead"
                  ? f.devices === null ? "not reached" : `not reached · ${f.devices} devices`
                  : !f.known
                  ? "passed"
                  : `${f.installed} installed · ${f.failed} failed · ${f.pending} pending of ${f.devices}`}
              </span>
            )}
          </li>
        );
      })}
    </ol>
  );
}

export const STATE_SEVERITY: Record<Rollout["state"], "info" | "success" | "warning" | "danger" | "secondary"> = {
  draft: "secondary",
  running: "info",
  paused: "warning",
  finished: "success",
  cancelled: "danger",
};
