import { queryOptions, useQuery } from "@tanstack/react-query";
import { useAtomValue } from "jotai";
import { type Role, roleAllows } from "../../../shared/schemas/operator.ts";
import { api } from "./api.ts";
import { tokenAtom } from "./token.ts";

/** GET me, cached per session token (a new sign-in asks again). */
export const meQuery = (token: string | null) =>
  queryOptions({ queryKey: ["me", token], queryFn: () => api.me(), staleTime: 60_000 });

export interface RoleState {
  /** The signed-in operator's role; undefined until GET me answered. */
  role: Role | undefined;
  /** True when the role is known and at least `need`. */
  can: (need: Role) => boolean;
  /** May change devices, treatments, product types and firmwares (operator or admin). */
  canWrite: boolean;
  isAdmin: boolean;
}

/**
 * The role of the one signed in (docs/REQUIREMENTS.md §12), for role-aware controls: what the role forbids is hidden or disabled.
 * Until GET me answers, nothing beyond reading is offered. The server checks every call anyway.
 */
export function useRole(): RoleState {
  const token = useAtomValue(tokenAtom);
  const me = useQuery({ ...meQuery(token), enabled: !!token });
  const role = me.data?.role;
  const can = (need: Role) => role !== undefined && roleAllows(role, need);
  return { role, can, canWrite: can("operator"), isAdmin: role === "admin" };
}

/** The sentence a disabled control's tooltip gives a viewer. */
export const READ_ONLY_TEXT = "Your role (viewer) can only read; ask an admin for the operator role to change this.";
