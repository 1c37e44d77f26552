import { ApiError } from "../../../shared/client.ts";
import { errorMessage, fieldError, fieldSentence } from "./messages.ts";

/**
 * The sentence to show beside a name field when the server refused a save because of that name (the field matched
 * by `isNameField`, or a 409: names are unique); null when the error is about something else.
 */
export function nameErrorOf(err: unknown, isNameField: (path: string) => boolean): string | null {
  const field = fieldError(err);
  if (field) return isNameField(field.path) ? fieldSentence("Name", field.rest) : null;
  return err instanceof ApiError && err.status === 409 ? errorMessage(err) : null;
}
