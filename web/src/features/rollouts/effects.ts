/**
 * What a rollout's stages hold and what each action does to devices, in numbers (docs/REQUIREMENTS.md §13: "Nothing widens by
 * surprise", "Finished says what is true"). Pure functions: the stage bars and the confirmations read them.
 */
import type { DefaultReach } from "../../../../shared/schemas/device_type.ts";
import type { Rollout, RolloutAction, RolloutStage } from "../../../../shared/schemas/rollout.ts";

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const devices = (n: number) => plural(n, "device");

/** How many of `targeted` devices a cumulative stage reaches, about (the bucket of each device decides). */
export const aboutInStage = (targeted: number, pct: number) => Math.round(targeted * pct / 100);

/** One stage as a bar draws it: its devices (cumulative) and, once reached, how many installed, failed, are pending. */
export interface StageFigure {
  stage: number;
  percent: number;
  /** done: the rollout went past it; current: the stage devices are offered now; ahead: not reached. */
  state: "done" | "current" | "ahead";
  /** Its devices; null when not known exactly (an unreached stage before the stage figures arrived). */
  devices: number | null;
  installed: number;
  failed: number;
  pending: number;
  /** Counts of a stage the rollout went past are not known until the stage figures arrive. */
  known: boolean;
}

function stateOf(r: Rollout, i: number): StageFigure["state"] {
  if (r.state === "draft" || r.stage < 0) return "ahead";
  if (i < r.stage) return "done";
  return i === r.stage ? "current" : "ahead";
}

/**
 * Each stage's figures: from GET rollouts/{id}/stages when loaded; until then the current stage from the rollout's
 * counts (every stage before it is part of it, so they are shown unknown: never a full bar on a guess).
 */
export function stageFigures(r: Rollout, stages: readonly RolloutStage[] | undefined): StageFigure[] {
  return r.stages.map((percent, i) => {
    const state = stateOf(r, i);
    const s = stages?.find((x) => x.stage === i);
    if (s) {
      return {
        stage: i,
        percent,
        state,
        devices: s.devices,
        installed: s.reached ? s.installed : 0,
        failed: s.reached ? s.failed : 0,
        pending: s.reached ? s.pending : 0,
        known: true,
      };
    }
    const c = r.counts;
    if (state === "current") {
      return {
        stage: i,
        percent,
        state,
        devices: c.inStage,
        installed: c.installed,
        failed: c.failed,
        pending: c.pending,
        known: true,
      };
    }
    const last = i === r.stages.length - 1;
    return {
      stage: i,
      percent,
      state,
      devices: last ? c.targeted : null,
      installed: 0,
      failed: 0,
      pending: 0,
      known: state === "ahead",
    };
  });
}

/** A bar's widths in percent of its stage's devices: installed, failed and pending never add up to full by rounding. */
export function shares(f: StageFigure): { installed: number; failed: number; pending: number } {
  const n = f.devices ?? 0;
  if (!n || f.state === "ahead" || !f.known) return { installed: 0, failed: 0, pending: 0 };
  return { installed: f.installed * 100 / n, failed: f.failed * 100 / n, pending: f.pending * 100 / n };
}

/** "Stage 2, 10 %: 4 devices: 3 installed, 0 failed, 1 pending" and the like (the bar's name and tooltip). */
export function stageLabel(f: StageFigure): string {
  const head = `Stage ${f.stage + 1}, ${f.percent} %`;
  if (f.state === "ahead") {
    return `${head}: not reached${f.devices === null ? "" : ` (${devices(f.devices)})`}`;
  }
  if (!f.known) return `${head}: passed (its devices are counted in the stages after it)`;
  if (f.devices === 0) return `${head}: no devices`;
  return `${head}: ${devices(f.devices ?? 0)}: ${f.installed} installed, ${f.failed} failed, ${f.pending} pending`;
}

/** What a confirmation says and how its buttons are named. */
export interface ActionEffect {
  header: string;
  message: string;
  details?: string;
  /** The button that does it ("Start stage 2") and the one that leaves things as they are ("Keep running"). */
  accept: string;
  keep: string;
  destructive?: boolean;
}

export interface EffectContext {
  /** The firmware's name. */
  firmware: string;
  /** The stage figures (GET rollouts/{id}/stages), undefined until loaded: the numbers are then "about". */
  stages: readonly RolloutStage[] | undefined;
  /** For promote: how many devices the device type's default reaches now (GET device_types/{id}/reach). */
  reach?: DefaultReach | null;
}

/** Devices of stage i: exact from the stage figures, else about (from the targeted count), else the current count. */
function stageDevices(r: Rollout, ctx: EffectContext, i: number): { n: number; exact: boolean } {
  const s = ctx.stages?.find((x) => x.stage === i);
  if (s) return { n: s.devices, exact: true };
  if (i === r.stage) return { n: r.counts.inStage, exact: true };
  if (r.stages[i] === 100) return { n: r.counts.targeted, exact: true };
  return { n: aboutInStage(r.counts.targeted, r.stages[i]), exact: false };
}

const count = ({ n, exact }: { n: number; exact: boolean }) => `${exact ? "" : "about "}${devices(n)}`;
const countMore = ({ n, exact }: { n: number; exact: boolean }) =>
  `${exact ? "" : "about "}${n} more device${n === 1 ? "" : "s"}`;
const stageName = (r: Rollout, i: number) => `Stage ${i + 1} (${r.stages[i]} %)`;

/** The current stage's devices without a final report and those that failed, as a sentence (or "" when none). */
function unfinished(r: Rollout): string {
  const pending = r.counts.pending;
  const parts = [
    pending ? `${plural(pending, "device has", "devices have")} not reported installing it` : "",
    r.counts.failed ? `${plural(r.counts.failed, "device")} failed` : "",
  ].filter(Boolean);
  return parts.join(" and ");
}

/** The confirmation of `action` on `r`: its effect in devices, and buttons named for it. */
export function actionEffect(action: RolloutAction, r: Rollout, ctx: EffectContext): ActionEffect {
  const fw = ctx.firmware;
  const k = r.stage;
  const last = r.stages.length - 1;
  const keepState = r.state === "draft" ? "Keep draft" : r.state === "paused" ? "Keep paused" : "Keep running";
  switch (action) {
    case "start": {
      const first = stageDevices(r, ctx, 0);
      return {
        header: `Start rollout ${r.name}?`,
        message: first.n === 0 && first.exact
          ? `${stageName(r, 0)} starts now: it holds no device yet, so no device gets ${fw} before stage 2.`
          : `${stageName(r, 0)} starts now: ${count(first)} ${first.n === 1 ? "gets" : "get"} ${fw}.`,
        details: `The rollout targets ${devices(r.counts.targeted)} in all; each later stage starts only ${
          r.autoAdvance ? "once the one before has installed (under the failure threshold) or " : ""
        }when you advance it.`,
        accept: "Start rollout",
        keep: "Keep draft",
      };
    }
    case "pause": {
      const held = stageDevices(r, ctx, k);
      return {
        header: `Pause rollout ${r.name}?`,
        message: `No more devices get ${fw} until you resume: the rollout stays at ${stageName(r, k)}.`,
        details: `The ${count(held)} of this stage keep being offered ${fw}${
          unfinished(r) ? `; ${unfinished(r)}` : ""
        }.`,
        accept: "Pause rollout",
        keep: "Keep running",
      };
    }
    case "resume": {
      const held = stageDevices(r, ctx, k);
      const next = k < last
        ? `${stageName(r, k + 1)} (${countMore(more(r, ctx, k + 1))}) starts only when you advance it${
          r.autoAdvance ? ", or automatically once new reports complete this stage under the failure threshold" : ""
        }.`
        : "This is the last stage: resuming does not finish the rollout.";
      return {
        header: `Resume rollout ${r.name}?`,
        message: `The rollout continues ${stageName(r, k)} with its ${count(held)}; resuming never widens it, ` +
          `even when this stage is complete.`,
        details:
          `${next} The failures so far are accepted: only new failures count against the ${r.failureThreshold} % threshold.`,
        accept: "Resume rollout",
        keep: "Keep paused",
      };
    }
    case "advance": {
      const left = unfinished(r);
      if (k >= last) {
        return {
          header: `Finish rollout ${r.name}?`,
          message: `${stageName(r, k)} is the last stage: the rollout is marked finished now.`,
          details: left ? `In this stage ${left}.` : `Every device of this stage installed ${fw}.`,
          accept: "Finish rollout",
          keep: `Stay at stage ${k + 1}`,
        };
      }
      return {
        header: `Start stage ${k + 2} of ${r.name}?`,
        message: `${stageName(r, k + 1)} starts now: ${countMore(more(r, ctx, k + 1))} ${
          more(r, ctx, k + 1).n === 1 ? "gets" : "get"
        } ${fw}.`,
        details: left ? `In stage ${k + 1} ${left}.` : undefined,
        accept: `Start stage ${k + 2}`,
        keep: `Stay at stage ${k + 1}`,
      };
    }
    case "promote": {
      const left = unfinished(r);
      const reach = ctx.reach;
      return {
        header: left ? `Promote ${fw} with devices that have not installed it?` : `Promote ${fw} to default?`,
        message: `${fw} becomes the device type's default firmware: ${
          reach ? devices(reach.devices) : "every device"
        } without a custom firmware or a rollout deciding theirs ${reach?.devices === 1 ? "gets" : "get"} it at ${
          reach?.devices === 1 ? "its" : "their"
        } next check-in.`,
        details: left ? `Of the ${devices(r.counts.inStage)} of this rollout, ${left}.` : undefined,
        accept: "Promote to default",
        keep: "Don't promote",
      };
    }
    case "cancel": {
      if (r.state === "draft") {
        return {
          header: `Cancel rollout ${r.name}?`,
          message: `The draft is cancelled; no device was offered ${fw}.`,
          accept: "Cancel rollout",
          keep: keepState,
          destructive: true,
        };
      }
      const back = Math.max(0, r.counts.inStage - r.counts.installed);
      return {
        header: `Cancel rollout ${r.name}?`,
        message: `${devices(back)} that have not installed ${fw} return to the default firmware at ${
          back === 1 ? "its" : "their"
        } next check-in.`,
        details: r.counts.installed
          ? `The ${devices(r.counts.installed)} that installed it keep it.`
          : "No device has installed it.",
        accept: "Cancel rollout",
        keep: keepState,
        destructive: true,
      };
    }
    case "retry":
      return {
        header: `Retry the failed devices of ${r.name}?`,
        message: `${plural(r.counts.failed, "failed device is", "failed devices are")} offered ${fw} again at ${
          r.counts.failed === 1 ? "its" : "their"
        } next check-in; until ${r.counts.failed === 1 ? "it reports" : "they report"}, ${
          r.counts.failed === 1 ? "it counts" : "they count"
        } as pending.`,
        accept: "Retry failed devices",
        keep: "Not now",
      };
  }
}

/** How many devices stage i adds to the one before it. */
function more(r: Rollout, ctx: EffectContext, i: number): { n: number; exact: boolean } {
  const to = stageDevices(r, ctx, i);
  const from = stageDevices(r, ctx, i - 1);
  return { n: Math.max(0, to.n - from.n), exact: to.exact && from.exact };
}
