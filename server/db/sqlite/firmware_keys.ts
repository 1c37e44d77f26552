/**
 * The kept firmware keys on SQLite (docs/DECISIONS.md, "Firmware in effect, kept"): per device, the firmware the
 * rollouts give it (`rollout_firmware_id`) and its firmware in effect unless the default (`firmware_key`). A device
 * write recomputes its own keys in its transaction; a change of rollouts or default (firmware_keys.generation, bumped
 * by triggers) is caught up by syncKeys(), in slices of the fleet, each its own transaction.
 */
import type { SQLInputValue } from "node:sqlite";
import { deviceTypeName } from "../../../shared/schemas/device_type.ts";
import {
  decidingRollouts,
  firmwareKeySql,
  HOLDING_ROLLOUTS_SQL,
  type HoldingRollout,
  holdingRollouts,
  KEYS_SYNC_SLICE,
  keysSignature,
  rolloutFirmwareSql,
} from "../rules/firmware_in_effect.ts";
import { type KeysKeeper, keysKeeper } from "../keys_keeper.ts";
import { type Db, sql, transaction } from "./open.ts";

/** rules/rollouts.ts's bucket(), as the function open.ts registers on the connection. */
export const BUCKET = (id: string) => `rollout_bucket(${id}, d.device_id)`;

/** What the firmware filters and the overview decide from, read in the caller's transaction. */
export interface KeysState {
  defaultFirmware: string | null;
  /** The rollouts that decide some device's firmware, newest first (decidingRollouts). */
  rollouts: HoldingRollout[];
  signature: string;
  /** The kept columns are of this state: the filters may read them. */
  current: boolean;
}

export function defaultFirmwareOf(db: Db, product: string): string | null {
  const row = sql(db, "SELECT default_firmware FROM device_types WHERE name = ?").get(deviceTypeName(product)) as
    | { default_firmware: string | null }
    | undefined;
  return row?.default_firmware ?? null;
}

const keepers = new WeakMap<Db, KeysKeeper>();

/** The keeper that syncs this connection's keys when a reader finds them behind (openSqliteStores sets it). */
export function keepKeys(db: Db): KeysKeeper {
  const keeper = keysKeeper((product, stopped) => syncKeys(db, product, stopped));
  keepers.set(db, keeper);
  return keeper;
}

/** The state in force; when the kept keys are behind it, the keeper is kicked (unless `kick` is false). */
export function keysState(db: Db, product: string, kick = true): KeysState {
  const { generation, kept } = sql(db, "SELECT generation, kept FROM firmware_keys").get() as {
    generation: number;
    kept: string | null;
  };
  const defaultFirmware = defaultFirmwareOf(db, product);
  const rollouts = decidingRollouts(holdingRollouts(sql(db, HOLDING_ROLLOUTS_SQL).all() as never), defaultFirmware);
  const signature = keysSignature(generation, rollouts, defaultFirmware);
  const current = kept === signature;
  if (!current && kick) keepers.get(db)?.kick(product);
  return { defaultFirmware, rollouts, signature, current };
}

/**
 * Recomputes the keys of the devices `where` selects (over alias d) for `state`, in the caller's transaction; writes
 * only the rows whose keys change.
 */
export function refreshKeys(db: Db, state: KeysState, where: string, whereArgs: SQLInputValue[]): void {
  const given = bound((p) => rolloutFirmwareSql(state.rollouts, p, BUCKET));
  sql(
    db,
    `UPDATE devices AS u SET rollout_firmware_id = x.r
     FROM (SELECT d.device_id, ${given.sql} AS r FROM devices d WHERE ${where}) x
     WHERE u.device_id = x.device_id AND u.rollout_firmware_id IS NOT x.r`,
  ).run(...given.args, ...whereArgs);
  const key = bound((p) => firmwareKeySql(state.defaultFirmware, p));
  sql(db, `UPDATE devices AS d SET firmware_key = ${key.sql} WHERE ${where} AND d.firmware_key IS NOT ${key.sql}`)
    .run(...key.args, ...whereArgs, ...key.args);
}

/** SQL text with `?` placeholders and the values they bind, in order. */
function bound(build: (p: (v: string | number) => string) => string): { sql: string; args: SQLInputValue[] } {
  const args: SQLInputValue[] = [];
  const text = build((v) => {
    args.push(v);
    return "?";
  });
  return { sql: text, args };
}

/**
 * A device write's own keys (its insert, its product type or custom firmware changed), in its transaction, for the
 * PRODUCT the syncs run for (none ran yet: nothing to do, no filter trusts the keys before the first sync ends).
 */
export function refreshDeviceKeys(db: Db, where: string, whereArgs: SQLInputValue[]): void {
  const { product } = sql(db, "SELECT product FROM firmware_keys").get() as { product: string | null };
  if (product !== null) refreshKeys(db, keysState(db, product), where, whereArgs);
}

const yieldToRequests = () => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * Brings every device's keys to the current state: slices of KEYS_SYNC_SLICE devices in deviceId order, each its
 * own write transaction (requests run in between); starts over when the state moves meanwhile; the last slice marks
 * the signature kept. Answers whether the keys are current.
 */
export async function syncKeys(db: Db, product: string, stopped = () => false): Promise<boolean> {
  for (let attempt = 0; attempt < 5; attempt++) {
    if (!db.isOpen) return false;
    const first = transaction(db, () => keysState(db, product, false), "DEFERRED");
    if (first.current) return true;
    let after = "";
    for (;;) {
      if (!db.isOpen || stopped()) return false;
      const step = transaction(db, () => {
        const state = keysState(db, product, false);
        if (state.signature !== first.signature) return "again";
        if (after === "") sql(db, "UPDATE firmware_keys SET product = ? WHERE product IS NOT ?").run(product, product);
        const end = sql(db, "SELECT device_id FROM devices WHERE device_id > ? ORDER BY device_id LIMIT 1 OFFSET ?")
          .get(after, KEYS_SYNC_SLICE - 1) as { device_id: string } | undefined;
        if (end === undefined) {
          refreshKeys(db, state, "d.device_id > ?", [after]);
          sql(db, "UPDATE firmware_keys SET kept = ?").run(state.signature);
          return "done";
        }
        refreshKeys(db, state, "d.device_id > ? AND d.device_id <= ?", [after, end.device_id]);
        after = end.device_id;
        return "more";
      });
      if (step === "done") return true;
      if (step === "again") break;
      await yieldToRequests();
    }
  }
  return false;
}
