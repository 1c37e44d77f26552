/**
 * Device identity and admission (docs/REQUIREMENTS.md §11), shared by every engine: each engine reads the device's state inside
 * its transaction, these functions decide, the engine writes.
 */
import type { Admission } from "../../../shared/schemas/device.ts";
import { ConflictError } from "../errors.ts";

/** A device's admission state as its row holds it. */
export interface AdmissionState {
  admission: Admission;
  /** The device holds a token (its hash is stored). */
  hasToken: boolean;
}

/** What an enrolment does. */
export type EnrollStep =
  /** Record an unknown device as pending (DEVICE_ADMISSION=manual). */
  | "create_pending"
  /** Record an unknown device as accepted and issue its token (DEVICE_ADMISSION=auto). */
  | "create_issue"
  /** Still pending: nothing but the version info changes. */
  | "pending"
  /** Accepted (or pending under auto admission) and without a token: issue one. */
  | "issue"
  /** Rejected: refused (403). */
  | "rejected"
  /** Already holds a token: refused (409) until an operator resets its credentials. */
  | "has_token";

export function enrollStep(current: AdmissionState | null, auto: boolean): EnrollStep {
  if (!current) return auto ? "create_issue" : "create_pending";
  switch (current.admission) {
    case "rejected":
      return "rejected";
    case "pending":
      return auto ? "issue" : "pending";
    case "accepted":
      return current.hasToken ? "has_token" : "issue";
  }
}

/** What an enrolment answered (the token itself is made, and shown, by the HTTP side). */
export type EnrollOutcome = "pending" | "issued" | "rejected" | "has_token";

export const outcomeOf = (step: EnrollStep): EnrollOutcome =>
  step === "create_pending" || step === "pending"
    ? "pending"
    : step === "create_issue" || step === "issue"
    ? "issued"
    : step;

/**
 * What the audit trail records of an enrolment (docs/REQUIREMENTS.md §12), or null for none: a device recorded pending, a token
 * issued, and a refused attempt on a device that holds a token (a leaked enrolment key trying a takeover). Repeated
 * enrolments while pending and those of a rejected device change nothing and are not recorded, so a device polling
 * does not flood the trail.
 */
export function enrollAuditDetails(step: EnrollStep, before: Admission | null): Record<string, unknown> | null {
  switch (step) {
    case "create_pending":
      return { result: "pending" };
    case "create_issue":
      return { result: "token_issued", admission: "accepted", auto: true };
    case "issue":
      return { result: "token_issued", admission: "accepted", from: before };
    case "has_token":
      return { result: "refused", reason: "the device already holds a token" };
    case "pending":
    case "rejected":
      return null;
  }
}

/** An operator's admission action. */
export type AdmissionAction = "accept" | "reject" | "reset_credentials";

/** The admission and whether the token is kept, after an action on a device in `current`. */
export function afterAction(
  current: AdmissionState,
  action: AdmissionAction,
): { admission: Admission; keepToken: boolean } {
  switch (action) {
    // An accepted device keeps its token; a pending or rejected one has none (rejecting dropped it).
    case "accept":
      return { admission: "accepted", keepToken: current.admission === "accepted" };
    case "reject":
      return { admission: "rejected", keepToken: false };
    case "reset_credentials":
      return { admission: current.admission, keepToken: false };
  }
}

/** The audit action of an operator's admission action. */
export const admissionAuditAction = (action: AdmissionAction) => `device.${action}` as const;

export const alreadyKnown = (deviceId: string, admission: Admission) =>
  new ConflictError(
    `Device ${deviceId} is already known (admission: ${admission}); ` +
      (admission === "pending" ? "accept it instead." : "there is nothing to pre-authorize."),
  );
