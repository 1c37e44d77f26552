import * as z from "zod";
import { Id, Timestamp } from "./common.ts";
import { MIN_PASSWORD_LENGTH } from "./auth.ts";

/** admin: everything; operator: everything but managing operators; viewer: reads only (docs/REQUIREMENTS.md §12). */
export const Role = z.enum(["admin", "operator", "viewer"]);
export type Role = z.infer<typeof Role>;

/** How much each role may do: a route needing `r` is open to every role ranked at least as high. */
export const ROLE_RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };
export const roleAllows = (have: Role, need: Role) => ROLE_RANK[have] >= ROLE_RANK[need];

export const Me = z.object({ email: z.string(), role: Role });
export type Me = z.infer<typeof Me>;

export const OperatorAccount = z.object({
  _id: Id,
  email: z.string(),
  role: Role,
  disabled: z.boolean(),
  createdAt: Timestamp,
});
export type OperatorAccount = z.infer<typeof OperatorAccount>;

const Password = z.string()
  .min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters long`)
  .max(1024, "is at most 1024 characters");

export const NewOperator = z.strictObject({
  email: z.string().trim().max(320).regex(/^[^\s@]+@[^\s@]+$/, "must be an e-mail address"),
  role: Role.default("operator"),
  password: Password,
});
export type NewOperator = z.input<typeof NewOperator>;

export const OperatorPatch = z.strictObject({ role: Role.optional(), disabled: z.boolean().optional() }).refine(
  (p) => p.role !== undefined || p.disabled !== undefined,
  { message: "give role, disabled or both" },
);
export type OperatorPatch = z.infer<typeof OperatorPatch>;

export const ResetPasswordBody = z.strictObject({ password: Password });
export type ResetPasswordBody = z.infer<typeof ResetPasswordBody>;
