/** E-mail addresses match ignoring case and surrounding spaces. */
export const emailKey = (email: string) => email.trim().toLowerCase();
