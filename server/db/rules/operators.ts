import { type Role, ROLE_RANK } from "../../../shared/schemas/operator.ts";

/** E-mail addresses match ignoring case and surrounding spaces. */
export const emailKey = (email: string) => email.trim().toLowerCase();

/** The refusal of a change that would leave no active admin (docs/REQUIREMENTS.md §12). */
export const LAST_ADMIN = "The last active admin cannot be demoted or disabled: make another operator admin first.";

/** The operator `id` does not exist. */
export const noOperator = (id: string) => `No operator with id ${id}.`;

/** Whether a change takes rights away (their sessions end at once). */
export const revokes = (before: { role: Role; disabled: boolean }, patch: { role?: Role; disabled?: boolean }) =>
  (patch.disabled === true && !before.disabled) ||
  (patch.role !== undefined && ROLE_RANK[patch.role] < ROLE_RANK[before.role]);

/** An operator as the target of an audit entry: id and e-mail. */
export const operatorTarget = (operator: { id?: string; _id?: string; email: string }) => ({
  type: "operator",
  id: operator.id ?? operator._id ?? "",
  name: operator.email,
});
