/** The rules of staged rollouts that both engines share (server/db/rules/rollouts.ts). */
import assert from "node:assert/strict";
import { bucket, nextStep, overThreshold } from "../../server/db/rules/rollouts.ts";

Deno.test("rollout buckets are fixed: a refactor must not move devices between stages", () => {
  // sha256("r1:dev-000") starts 0x613b..., and so on: checked against `echo -n r1:dev-000 | sha256sum`.
  assert.equal(bucket("r1", "dev-000"), 37.98198257572949);
  assert.equal(bucket("r1", "dev-001"), 88.10347474645823);
  assert.equal(bucket("0f3c9a7e5b2d4c1f8a6e9d0b7c5a3e21", "SN-100042"), 59.84293627552688);
  assert.equal(bucket("rollout", "a"), 5.267876363359392);
});

Deno.test("rollout buckets spread evenly over [0, 100)", () => {
  const counts = new Array(10).fill(0);
  for (let i = 0; i < 10_000; i++) counts[Math.floor(bucket("spread", `d${i}`) / 10)]++;
  for (const c of counts) assert.ok(c > 900 && c < 1100, `decile holds ${c}`);
});

Deno.test("rollout steps: pause over the threshold, advance when complete, finish at the last stage", () => {
  const r = { state: "running" as const, stage: 0, stages: [10, 100], failureThreshold: 5, autoAdvance: true };
  const counts = (installed: number, failed: number, failed_accepted = 0) => ({
    targeted: 100,
    in_stage: 10,
    downloading: 0,
    installing: 0,
    installed,
    failed,
    failed_accepted,
  });
  assert.equal(nextStep(r, counts(5, 0)), null);
  assert.equal(nextStep(r, counts(10, 0)), "advance");
  assert.equal(nextStep(r, counts(3, 1)), "pause"); // 10 % > 5 %
  assert.equal(nextStep(r, counts(9, 1, 1)), "advance"); // the failure was accepted by a resume
  assert.equal(nextStep({ ...r, autoAdvance: false }, counts(10, 0)), null);
  assert.equal(nextStep({ ...r, stage: 1 }, { ...counts(100, 0), in_stage: 100 }), "finish");
  assert.equal(nextStep({ ...r, state: "paused" }, counts(10, 0)), null);
  assert.equal(overThreshold({ ...counts(0, 0), in_stage: 0 }, 5), false);
  assert.equal(overThreshold({ ...counts(95, 5), in_stage: 100 }, 5), false); // exactly at the threshold: not over
});
