import * as z from "zod";

export const LoginBody = z.strictObject({
  email: z.string().max(320),
  password: z.string().max(1024),
});
export type LoginBody = z.infer<typeof LoginBody>;

export const LoginResponse = z.object({ token: z.string() });
export type LoginResponse = z.infer<typeof LoginResponse>;

export const MIN_PASSWORD_LENGTH = 8;

export const ChangePasswordBody = z.strictObject({
  old_password: z.string().max(1024),
  new_password: z.string()
    .min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters long`)
    .max(1024, "is at most 1024 characters"),
});
export type ChangePasswordBody = z.infer<typeof ChangePasswordBody>;

/** The claims of an operator token (HS256). */
export const TokenClaims = z.object({
  sub: z.string(),
  iat: z.number(),
  exp: z.number(),
  pwv: z.number().optional(),
});
export type TokenClaims = z.infer<typeof TokenClaims>;
