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
