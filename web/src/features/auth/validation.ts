/** The simple shape of an e-mail address. */
const EMAIL = /^[^\s@]+@[^\s@]+$/;

export interface LoginErrors {
  email?: string;
  password?: string;
}

/** The sign-in form's rules; an empty object means the form may be sent. */
export function validateLogin(email: string, password: string): LoginErrors {
  const errors: LoginErrors = {};
  if (!EMAIL.test(email.trim())) errors.email = "Please enter a valid email address.";
  if (!password) errors.password = "Please enter your password.";
  return errors;
}

/** Save only when current and new are non-blank and the confirmation equals the new password. */
export function canSavePassword(current: string, next: string, confirmation: string): boolean {
  return current.trim() !== "" && next.trim() !== "" && confirmation === next;
}

/** The one sentence a refused sign-in shows. */
export const INVALID_SIGN_IN = "Invalid email address or password.";

/**
 * What a failed sign-in shows: the one sentence, except for a throttled attempt (429), whose message says how long to
 * wait. Read without importing ApiError: the client's code is not part of the sign-in page's first load.
 */
export function signInFailure(err: unknown): string {
  const { status, message } = (err ?? {}) as { status?: number; message?: string };
  return status === 429 && message ? message : INVALID_SIGN_IN;
}
