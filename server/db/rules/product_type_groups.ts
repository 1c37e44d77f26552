/** `sort=productType`: the order of the product-type groups and the slices of them one page covers. */
import type { DeviceSortOrder } from "../../../shared/schemas/device.ts";
import { type ExactCount, VIEW_COUNT_LIMIT } from "./device_view.ts";

/**
 * Product types in the order `sort=productType` shows them: devices without one first, then by name (code-unit
 * order), then id; `desc` reverses the whole list. null stands for "no product type".
 */
export function productTypeOrder(
  types: readonly { id: string; name: string }[],
  order: DeviceSortOrder,
): (string | null)[] {
  const sorted = [...types].sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0
  );
  const ids: (string | null)[] = [null, ...sorted.map((t) => t.id)];
  return order === "asc" ? ids : ids.reverse();
}

/**
 * The product-type groups of `sort=productType` from the kept counts (no filter, or one product type alone: the others
 * are empty), in `order`, and their total.
 */
export function keptGroups(
  order: readonly (string | null)[],
  kept: ReadonlyMap<string | null, number>,
  one: ExactCount | null,
): { groups: { key: string | null; count: number }[]; total: number } {
  const groups = order.map((key) => ({
    key,
    count: one?.kind === "productType" && one.id !== key ? 0 : kept.get(key) ?? 0,
  }));
  return { groups, total: groups.reduce((s, g) => s + g.count, 0) };
}

/**
 * The slices of product-type groups (in productTypeOrder) that one page covers: for each, the group, how many of its
 * devices to skip and how many to take (each group ordered by deviceId in the view's direction).
 */
export function groupSlices(
  groups: readonly { key: string | null; count: number }[],
  offset: number,
  limit: number,
): { key: string | null; offset: number; limit: number }[] {
  const out: { key: string | null; offset: number; limit: number }[] = [];
  let start = 0;
  for (const g of groups) {
    if (limit <= 0) break;
    const end = start + g.count;
    if (offset < end) {
      const skip = Math.max(0, offset - start);
      const take = Math.min(limit, g.count - skip);
      if (take > 0) out.push({ key: g.key, offset: skip, limit: take });
      offset += take;
      limit -= take;
    }
    start = end;
  }
  return out;
}

/**
 * `sort=productType` under a filter (other than one product type alone): the product-type groups are walked in
 * productTypeOrder, each counted only as far as the view still needs — up to `need` = the page's end plus
 * VIEW_COUNT_LIMIT (the page's end alone when the total is not wanted, or the filter's exact count gives it) — and the walk stops once that many are
 * counted, as the other sorts read on past the page. The engine counts each group it is given (`next()`: its key and
 * the most to count, one LIMIT-ed index range of (product_type_id, device_id)) and reports the count (`counted()`);
 * `result()` gives the slices of groups the page covers (groupSlices) and the total: exact when every group was
 * counted fully (fewer than `need` in all), else the lower bound `need` with `exact: false`. A page beyond the end
 * gets the exact number of matches: it is below `need`.
 */
export class GroupWalk {
  readonly need: number;
  readonly #groups: { key: string | null; count: number }[] = [];
  #counted = 0;

  constructor(
    private readonly order: readonly (string | null)[],
    private readonly offset: number,
    private readonly perPage: number,
    count: boolean,
  ) {
    this.need = offset + perPage + (count ? VIEW_COUNT_LIMIT : 0);
  }

  /** The next group to count, and the most to count of it; null when the walk is over. */
  next(): { key: string | null; cap: number } | null {
    const i = this.#groups.length;
    if (i >= this.order.length || this.#counted >= this.need) return null;
    return { key: this.order[i], cap: this.need - this.#counted };
  }

  /** Records the count of the group next() named (at most its cap). */
  counted(n: number): void {
    const step = this.next();
    if (step === null) throw new Error("GroupWalk: no group to count");
    const count = Math.min(n, step.cap);
    this.#groups.push({ key: step.key, count });
    this.#counted += count;
  }

  /** The page's slices of groups and the total (exact when every group was counted fully). */
  result(): {
    slices: { key: string | null; offset: number; limit: number }[];
    total: number;
    exact: boolean;
  } {
    if (this.next() !== null) throw new Error("GroupWalk: the walk is not over");
    return {
      slices: groupSlices(this.#groups, this.offset, this.perPage),
      total: this.#counted,
      exact: this.#counted < this.need,
    };
  }
}
