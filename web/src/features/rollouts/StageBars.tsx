import type { Rollout } from "../../../../shared/schemas/rollout.ts";

/** Where a stage stands: done (the rollout went past it), current, or ahead. */
function stageState(r: Rollout, i: number): "done" | "current" | "ahead" {
  if (r.state === "finished" || i < r.stage) return "done";
  return i === r.stage ? "current" : "ahead";
}

/**
 * One bar per stage: a stage's share of the targeted devices, filled by how many of the current stage installed
 * (failed in red). Stages are cumulative, so a finished stage is full.
 */
export function StageBars({ rollout: r, compact }: { rollout: Rollout; compact?: boolean }) {
  const c = r.counts;
  return (
    <ol className={`stage-bars${compact ? " compact" : ""}`} aria-label={`Stages of ${r.name}`}>
      {r.stages.map((pct, i) => {
        const state = stageState(r, i);
        const installed = state === "done" ? 100 : state === "current" && c.inStage ? c.installed * 100 / c.inStage : 0;
        const failed = state === "current" && c.inStage ? c.failed * 100 / c.inStage : 0;
        const label = `Stage ${i + 1}, ${pct} %: ${
          state === "done"
            ? "done"
            : state === "current"
            ? `${c.installed} of ${c.inStage} installed, ${c.failed} failed`
            : "not reached"
        }`;
        return (
          <li key={i} className={`stage-bar ${state}`} title={label}>
            {!compact && <span className="stage-label">{pct} %</span>}
            <span className="stage-track" role="img" aria-label={label}>
              <span className="stage-installed" style={{ width: `${installed}%` }} />
              <span className="stage-failed" style={{ width: `${failed}%` }} />
            </span>
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
