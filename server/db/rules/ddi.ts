/** hawkBit DDI's rules that are not SQL (docs/REQUIREMENTS.md §18): feedback as §13 update reports. */
import { DDI_DETAILS_MAX, type DdiFeedback } from "../../../shared/schemas/ddi.ts";
import type { UpdateState } from "../../../shared/schemas/device.ts";
import type { FirmwareSignature } from "../../../shared/schemas/firmware.ts";

/** An action's state: open (linked as deploymentBase), canceling (linked as cancelAction), closed, canceled. */
export type DdiActionState = "open" | "canceling" | "closed" | "canceled";

/** What one deploymentBase feedback means for §13: the report to record (null: none), and whether it ends the action. */
export interface DdiReport {
  state: UpdateState | null;
  progress: number | null;
  message: string | null;
  /** The action is closed by it ("success" or "failure"), else null. */
  closes: "success" | "failure" | null;
}

/** `details` joined with "; " and cut to 1000 characters (never refused: an agent's long log is still recorded). */
export function detailsText(details: readonly string[] | undefined): string | null {
  const text = (details ?? []).map((d) => d.trim()).filter((d) => d !== "").join("; ");
  return text === "" ? null : [...text].slice(0, DDI_DETAILS_MAX).join("");
}

/**
 * hawkBit's execution and result as §13's states: `download`/`downloaded` downloading; `closed` with `success`
 * installed, with `failure` failed; `rejected` and `canceled` (the device refused or dropped the update) failed; any other
 * execution (proceeding, scheduled, resumed, or one hawkBit adds later) installing. `closed` with no result (`none`)
 * reports installing and closes nothing.
 */
export function ddiReportOf(feedback: DdiFeedback): DdiReport {
  const { execution, result, details } = feedback.status;
  const finished = result?.finished;
  const message = detailsText(details);
  const cnt = result?.progress?.cnt;
  const of = result?.progress?.of;
  const progress = typeof cnt === "number" && typeof of === "number" && of > 0 && cnt >= 0
    ? Math.min(100, Math.round((cnt / of) * 100))
    : null;
  const report = (state: UpdateState, closes: DdiReport["closes"] = null): DdiReport => ({
    state,
    progress: state === "installed" ? 100 : progress,
    message,
    closes,
  });
  switch (execution) {
    case "download":
    case "downloaded":
      return report("downloading");
    case "closed":
      if (finished === "success") return report("installed", "success");
      if (finished === "failure") return report("failed", "failure");
      return report("installing");
    case "rejected":
    case "canceled":
      return report("failed", "failure");
    default:
      return report("installing");
  }
}

/** A cancelAction feedback that ends the withdrawal: the device stopped (closed, canceled) or will not (rejected). */
export const endsWithdrawal = (feedback: DdiFeedback): boolean =>
  ["closed", "canceled", "rejected"].includes(feedback.status.execution);

/** DDI's polling interval, HH:MM:SS. */
export function sleepText(seconds: number): string {
  const two = (n: number) => String(n).padStart(2, "0");
  return `${two(Math.floor(seconds / 3600))}:${two(Math.floor(seconds / 60) % 60)}:${two(seconds % 60)}`;
}

/**
 * A signed firmware's signature as hawkBit chunk metadata (key/value pairs agents pass on; SWUpdate ignores them), so a
 * device holding the release key can check the artifact's SHA-256 digest itself (docs/REQUIREMENTS.md §20).
 */
export const signatureMetadata = (s: FirmwareSignature): { key: string; value: string }[] => [
  { key: "signature.keyId", value: s.keyId },
  { key: "signature.keyName", value: s.keyName },
  { key: "signature.algorithm", value: s.algorithm },
  { key: "signature.value", value: s.value },
];
