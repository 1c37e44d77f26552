import { describe, expect, it } from "vitest";
import type { Rollout, RolloutStage } from "../../../../shared/schemas/rollout.ts";
import { actionEffect, shares, stageFigures, stageLabel } from "./effects.ts";

const rollout = (over: Partial<Rollout> = {}, counts: Partial<Rollout["counts"]> = {}): Rollout => ({
  _id: "r1",
  name: "fw-2.0.0.xz",
  firmwareId: "f1",
  productTypeId: null,
  stages: [10, 100],
  failureThreshold: 10,
  autoAdvance: true,
  state: "running",
  stage: 0,
  pausedReason: null,
  counts: { targeted: 25, inStage: 5, downloading: 0, installing: 0, installed: 5, failed: 0, pending: 0, ...counts },
  createdAt: "2026-11-27T10:00:00.000Z",
  updatedAt: "2026-11-27T10:00:00.000Z",
  createdBy: "admin@example.com",
  ...over,
});

const stage = (s: Partial<RolloutStage> & { stage: number; percent: number; devices: number }): RolloutStage => ({
  reached: true,
  installed: 0,
  failed: 0,
  pending: 0,
  ...s,
});

describe("stage figures", () => {
  it("never draws a full bar for a finished stage with pending devices", () => {
    const r = rollout({ state: "finished", stage: 1, stages: [50, 100] }, {
      targeted: 43,
      inStage: 43,
      installed: 32,
      pending: 11,
    });
    const figures = stageFigures(r, [
      stage({ stage: 0, percent: 50, devices: 20, installed: 20 }),
      stage({ stage: 1, percent: 100, devices: 43, installed: 32, pending: 11 }),
    ]);
    expect(figures.map((f) => f.state)).toEqual(["done", "current"]);
    const last = shares(figures[1]);
    expect(last.installed).toBeLessThan(100);
    expect(last.installed + last.failed).toBeLessThan(100);
    expect(last.pending).toBeCloseTo(11 * 100 / 43);
    expect(stageLabel(figures[1])).toBe("Stage 2, 100 %: 43 devices: 32 installed, 0 failed, 11 pending");
    expect(shares(figures[0]).installed).toBe(100);
  });

  it("does not guess a passed stage before the stage figures arrive", () => {
    const r = rollout({ stage: 1, stages: [10, 50, 100] }, { inStage: 12, installed: 9, failed: 1, pending: 2 });
    const [passed, current, ahead] = stageFigures(r, undefined);
    expect(passed.known).toBe(false);
    expect(shares(passed)).toEqual({ installed: 0, failed: 0, pending: 0 });
    expect(stageLabel(current)).toBe("Stage 2, 50 %: 12 devices: 9 installed, 1 failed, 2 pending");
    expect(stageLabel(ahead)).toBe("Stage 3, 100 %: not reached (25 devices)");
  });
});

describe("action confirmations", () => {
  const stages = [
    stage({ stage: 0, percent: 10, devices: 7, installed: 6, failed: 1 }),
    stage({ stage: 1, percent: 100, devices: 27, reached: false }),
  ];

  it("advance names the next stage and how many more devices get the firmware", () => {
    const r = rollout({}, { inStage: 7, installed: 6, failed: 1 });
    const e = actionEffect("advance", r, { firmware: "fw-2.0.0.xz", stages });
    expect(e.message).toBe("Stage 2 (100 %) starts now: 20 more devices get fw-2.0.0.xz.");
    expect(e.accept).toBe("Start stage 2");
    expect(e.keep).toBe("Stay at stage 1");
  });

  it("resume continues the current stage and says it never widens", () => {
    const r = rollout({ state: "paused" }, { inStage: 7, installed: 6, failed: 1 });
    const e = actionEffect("resume", r, { firmware: "fw-2.0.0.xz", stages });
    expect(e.message).toBe(
      "The rollout continues Stage 1 (10 %) with its 7 devices; resuming never widens it, even when this stage is complete.",
    );
    expect(e.details).toContain("Stage 2 (100 %) (20 more devices) starts only when you advance it");
    expect([e.accept, e.keep]).toEqual(["Resume rollout", "Keep paused"]);
  });

  it("promote with pending and failed devices says how many", () => {
    const r = rollout({ state: "finished", stage: 1 }, { inStage: 43, installed: 30, failed: 2, pending: 11 });
    const e = actionEffect("promote", r, {
      firmware: "fw-2.0.0.xz",
      stages,
      reach: { total: 300, devices: 250, custom: 7, rollout: 43 },
    });
    expect(e.header).toBe("Promote fw-2.0.0.xz with devices that have not installed it?");
    expect(e.details).toBe(
      "Of the 43 devices of this rollout, 11 devices have not reported installing it and 2 devices failed.",
    );
    expect(e.message).toContain("250 devices without a custom firmware");
  });

  it("cancel and retry are named for what they do", () => {
    const r = rollout({}, { inStage: 7, installed: 4, failed: 2, pending: 1 });
    const cancel = actionEffect("cancel", r, { firmware: "fw", stages });
    expect(cancel.message).toBe(
      "3 devices that have not installed fw return to the default firmware at their next check-in.",
    );
    expect([cancel.accept, cancel.keep]).toEqual(["Cancel rollout", "Keep running"]);
    const retry = actionEffect("retry", r, { firmware: "fw", stages });
    expect(retry.message).toBe(
      "2 failed devices are offered fw again at their next check-in; until they report, they count as pending.",
    );
    expect(retry.accept).toBe("Retry failed devices");
  });
});
