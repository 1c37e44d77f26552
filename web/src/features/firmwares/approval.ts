import type { Firmware } from "../../../../shared/schemas/firmware.ts";
import type { Role } from "../../../../shared/schemas/operator.ts";

/** Why a pending firmware cannot yet be a default, a pin, a bulk change or a rollout (the server answers 409). */
export const AWAITS_APPROVAL_TEXT =
  "Awaiting approval: a second operator or admin must approve this firmware before it can be released.";

export const isPending = (f: Pick<Firmware, "approval">) => f.approval.state === "pending";

/**
 * What the signed-in person is offered for a firmware's approval: the Approve button (enabled), the button disabled
 * with the reason (the uploader: the server refuses them with 403), or no button with the reason (a viewer). Nothing
 * for a firmware that is not pending. While the role is not known yet the button shows disabled, without a reason.
 */
export type ApproveOffer =
  | { kind: "none"; reason: null }
  | { kind: "approve"; reason: null }
  | { kind: "disabled"; reason: string | null }
  | { kind: "hidden"; reason: string };

export function approveOffer(
  f: Pick<Firmware, "approval" | "uploadedBy">,
  role: Role | undefined,
  email: string | null,
): ApproveOffer {
  if (!isPending(f)) return { kind: "none", reason: null };
  if (role === undefined) return { kind: "disabled", reason: null };
  if (role === "viewer") {
    return {
      kind: "hidden",
      reason: "Approving needs the operator or admin role; you are signed in as viewer.",
    };
  }
  if (email !== null && f.uploadedBy !== null && f.uploadedBy.toLowerCase() === email.toLowerCase()) {
    return {
      kind: "disabled",
      reason: "You uploaded this firmware, so you cannot approve it: another operator or admin must (two-person " +
        "release).",
    };
  }
  return { kind: "approve", reason: null };
}
