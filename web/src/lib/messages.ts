import { ApiError } from "../../../shared/client.ts";

/** What operators call the API's fields. */
const LABELS: Record<string, string> = {
  name: "Name",
  old_password: "Current password",
  new_password: "New password",
  email: "E-mail",
  password: "Password",
  productTypeId: "Product type",
  moduleIds: "Enabled modules",
  additionalTreatmentIds: "Additional treatments",
  firmware: "Custom firmware",
  defaultFirmware: "Default firmware",
  treatmentIds: "Treatments",
  isDefault: "Default flag",
  deviceId: "Device ID",
  _id: "Id",
  body: "The request",
  query: "The request",
};

/** `camelCase` or `snake_case` as words: "rowsPerPage" -> "Rows per page". */
function words(key: string): string {
  const spaced = key.replace(/_/g, " ").replace(/([a-z0-9])([A-Z])/g, "$1 $2").trim().toLowerCase();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

/** A readable name for a field path of the API, e.g. "modules.0.name" -> "Name of module 1". */
export function fieldLabel(path: string): string {
  const moduleField = /^modules\.(\d+)\.(\w+)$/.exec(path);
  if (moduleField) {
    const n = Number(moduleField[1]) + 1;
    return moduleField[2] === "_id" ? `Module ${n}` : `${fieldLabel(moduleField[2])} of module ${n}`;
  }
  return LABELS[path] ?? words(path.split(".").pop() ?? path);
}

/** Splits "field.path: what is wrong." into its field path and the rest; messages without one keep path null. */
export function splitFieldMessage(msg: string): { path: string | null; rest: string } {
  const m = /^([A-Za-z_]\w*(?:\.\w+)*): (.+)$/s.exec(msg);
  return m ? { path: m[1], rest: m[2] } : { path: null, rest: msg };
}

const VERB = /^(must|is|are|has|have|may|cannot|can|should|does|differs|contains)\b/;

/** The sentence about one field, without its path: "must be at least 8 characters long." -> "<Label> must be ...". */
export function fieldSentence(label: string, rest: string): string {
  const text = rest.trim().replace(/\.$/, "");
  const gone = /^no (.+?) with id (\S+)$/.exec(text);
  if (gone) return `${label}: the ${gone[1]} with id ${gone[2]} no longer exists; reload to see the current list.`;
  if (VERB.test(text)) return `${label} ${text}.`;
  return `${label}: ${text}.`;
}

/** A server msg for people: a leading API field path becomes the field's name ("new_password: ..." -> "New ..."). */
export function readableMessage(msg: string): string {
  const { path, rest } = splitFieldMessage(msg);
  return path ? fieldSentence(fieldLabel(path), rest) : msg;
}

export type ConnectionProblem = "offline" | "unreachable";

function browserOffline(): boolean {
  return typeof navigator !== "undefined" && navigator.onLine === false;
}

/** Whether an error means the browser is offline or the server did not answer (nothing reached it, or a proxy said so). */
export function connectionProblem(err: unknown): ConnectionProblem | null {
  if (!(err instanceof ApiError)) {
    // A lazy screen that could not be fetched.
    if (err instanceof TypeError && /dynamically imported module|module script/i.test(err.message)) {
      return browserOffline() ? "offline" : "unreachable";
    }
    return null;
  }
  if (err.kind === "FETCH_ERROR" || err.kind === "TIMEOUT_ERROR") return browserOffline() ? "offline" : "unreachable";
  if (err.kind === "HTTP_ERROR" && (err.status === 502 || err.status === 504)) return "unreachable";
  return null;
}

export const CONNECTION_TEXT: Record<ConnectionProblem, string> = {
  offline: "You are offline.",
  unreachable: "The server cannot be reached.",
};

/** One sentence for any error: the connection problem, else the server's msg in words, else the error's message. */
export function errorMessage(err: unknown): string {
  const problem = connectionProblem(err);
  if (problem) return CONNECTION_TEXT[problem];
  if (err instanceof ApiError) return err.kind === "HTTP_ERROR" ? readableMessage(err.msg) : err.msg;
  if (err instanceof Error) return err.message;
  return String(err);
}

/** The field an error is about (its API path) and the sentence to show beside that field, if the server named one. */
export function fieldError(err: unknown): { path: string; rest: string; text: string } | null {
  if (!(err instanceof ApiError) || err.kind !== "HTTP_ERROR" || err.status !== 400) return null;
  const { path, rest } = splitFieldMessage(err.msg);
  if (!path || path === "body" || path === "query") return null;
  return { path, rest, text: fieldSentence(fieldLabel(path), rest) };
}
