import { ApiClient } from "../../../shared/client.ts";
import { getToken, setToken } from "./token.ts";

/** The one client of the web app: same origin, bearer token of the session; any 401 signs out. */
export const api = new ApiClient({
  baseUrl: "",
  token: getToken,
  onUnauthorized: () => {
    if (getToken()) setToken(null);
  },
});
