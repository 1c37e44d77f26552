import "./zod_config.ts";
import { ApiClient } from "../../../shared/client.ts";
import { reauthorize } from "./sessionEnd.ts";
import { getToken } from "./token.ts";

/**
 * The one client of the web app: same origin, bearer token of the session. A call refused with 401 (the session
 * ended) waits for the sign-in dialog over the page and is sent again after it, so no confirmed change is lost.
 */
export const api = new ApiClient({ baseUrl: "", token: getToken, reauthorize });
