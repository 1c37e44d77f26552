/**
 * The kept firmware keys on PostgreSQL (SQLite's firmware_keys.ts; docs/DECISIONS.md, "Firmware in effect, kept").
 * Locks: a device write that computes its keys holds its device rows, then firmware_keys FOR SHARE; a change of
 * rollouts or default bumps firmware_keys.generation (triggers) after its own rows — the same order as a status
 * report (device, rollout, firmware_keys), so nothing waits in a circle, and no change commits between a device
 * write's read of the state and its commit. A sync slice runs under the write lock (one sync at a time, never beside
 * an operator's bulk change) and starts over when the state moved since its first slice.
 */
import { deviceTypeName } from "../../../shared/schemas/device_type.ts";
import { type KeysKeeper, keysKeeper } from "../keys_keeper.ts";
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
import { type Sql, type Tx, write, writeRetried } from "./open.ts";

type Arg = string | number | null | string[];

/**
 * rules/rollouts.ts's bucket() in SQL: the first 32 bits of sha256(rolloutId + ":" + deviceId), big-endian, over
 * 2^32, times 100, in float8 as JavaScript computes it (so a device sits on the same side of a stage's percentage).
 */
export const BUCKET = (id: string) =>
  `((('x' || substr(encode(sha256(convert_to(${id} || ':' || d.device_id, 'UTF8')), 'hex'), 1, 8))::bit(32)::bigint)::float8 / 4294967296.0::float8 * 100.0::float8)`;

export interface KeysState {
  defaultFirmware: string | null;
  rollouts: HoldingRollout[];
  signature: string;
  current: boolean;
}

/** The state from its parts (the overview reads them in its own round trip). */
export function keysStateOf(
  generation: number,
  kept: string | null,
  defaultFirmware: string | null,
  holding: HoldingRollout[],
): KeysState {
  const rollouts = decidingRollouts(holding, defaultFirmware);
  const signature = keysSignature(generation, rollouts, defaultFirmware);
  return { defaultFirmware, rollouts, signature, current: kept === signature };
}

/**
 * This process's keepers (one per open store set). A reader's transaction does not name its pool, so a reader that
 * finds the keys behind kicks them all: a keeper of another database finds its own keys current and stops.
 */
const keepers = new Set<KeysKeeper>();

/** The keeper that syncs in the background when a reader finds the keys behind; close() it before the pool. */
export function keepKeys(sql: Sql): KeysKeeper {
  const keeper = keysKeeper((product, stopped) => syncKeys(sql, product, stopped));
  keepers.add(keeper);
  return {
    kick: keeper.kick,
    close: () => {
      keepers.delete(keeper);
      return keeper.close();
    },
  };
}

/** Kicks the keepers when `state` is behind (a reader's call). */
export function kickWhenBehind(state: KeysState, product: string): void {
  if (!state.current) { for (const k of keepers) k.kick(product); }
}

export async function keysState(tx: Tx, product: string): Promise<KeysState> {
  const [row] = await tx`SELECT k.generation, k.kept,
      (SELECT default_firmware FROM device_types WHERE name = ${deviceTypeName(product)}) AS default_firmware
    FROM firmware_keys k`;
  const holding = holdingRollouts(await tx.unsafe(HOLDING_ROLLOUTS_SQL) as never);
  return keysStateOf(Number(row.generation), row.kept ?? null, row.default_firmware ?? null, holding);
}

/**
 * Recomputes the keys of the devices `where` selects (over alias d, parameters from $1), in the caller's transaction;
 * answers how many rows changed.
 */
async function refreshKeys(tx: Tx, state: KeysState, where: string, whereArgs: Arg[]): Promise<number> {
  const args = [...whereArgs];
  const p = (v: Arg) => {
    args.push(v);
    return `$${args.length}`;
  };
  const given = rolloutFirmwareSql(state.rollouts, p, BUCKET);
  const first = await tx.unsafe(
    `UPDATE devices u SET rollout_firmware_id = x.r
     FROM (SELECT d.device_id, ${given}::text AS r FROM devices d WHERE ${where}) x
     WHERE u.device_id = x.device_id AND u.rollout_firmware_id IS DISTINCT FROM x.r`,
    args as never,
  );
  args.length = whereArgs.length;
  const key = firmwareKeySql(state.defaultFirmware, p);
  const second = await tx.unsafe(
    `UPDATE devices d SET firmware_key = ${key} WHERE ${where} AND d.firmware_key IS DISTINCT FROM ${key}`,
    args as never,
  );
  return first.count + second.count;
}

/**
 * A device write's own keys (its insert, its product type or custom firmware changed), after its rows are written,
 * in its transaction, for the PRODUCT the syncs run for (none ran yet: nothing to do).
 */
export async function refreshDeviceKeys(tx: Tx, where: string, whereArgs: Arg[]): Promise<void> {
  const [{ product }] = await tx`SELECT product FROM firmware_keys FOR SHARE`;
  if (product !== null) await refreshKeys(tx, await keysState(tx, product as string), where, whereArgs);
}

/**
 * Brings every device's keys to the current state: slices of KEYS_SYNC_SLICE devices in deviceId order, each its own
 * transaction under the write lock; starts over when the state moves meanwhile; the last slice marks the signature
 * kept. Answers whether the keys are current.
 */
export async function syncKeys(sql: Sql, product: string, stopped = () => false): Promise<boolean> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const first = await keysState(sql, product);
    if (first.current) return true;
    // In a transaction of its own: no device row is held while firmware_keys' row is (see the locks above).
    await write(
      sql,
      (tx) => tx`UPDATE firmware_keys SET product = ${product} WHERE product IS DISTINCT FROM ${product}`,
    );
    let after = "";
    let changed = 0;
    for (;;) {
      if (stopped()) return false;
      // The slice's outcome is applied once its transaction committed (a retried one starts from the same place).
      const { step, end, n } = await writeRetried(sql, async (tx) => {
        const state = await keysState(tx, product);
        if (state.signature !== first.signature) return { step: "again", end: null, n: 0 };
        // another replica's sync got there first
        if (state.current) return { step: "done", end: null, n: 0 };
        const [row] = await tx`SELECT device_id FROM devices WHERE device_id > ${after}
          ORDER BY device_id LIMIT 1 OFFSET ${KEYS_SYNC_SLICE - 1}`;
        if (row === undefined) {
          return { step: "last", end: null, n: await refreshKeys(tx, state, "d.device_id > $1", [after]) };
        }
        const end = row.device_id as string;
        return {
          step: "more",
          end,
          n: await refreshKeys(tx, state, "d.device_id > $1 AND d.device_id <= $2", [after, end]),
        };
      });
      changed += n;
      if (end !== null) after = end;
      if (step === "done") return true;
      if (step === "again") break;
      if (step === "last") {
        // Marked in a transaction of its own, which holds no counter row while it waits for firmware_keys' row (a
        // check-in computing its keys holds that row FOR SHARE and then takes counter rows).
        const marked = await write(sql, async (tx) => {
          const state = await keysState(tx, product);
          if (state.signature !== first.signature) return false;
          await tx`UPDATE firmware_keys SET kept = ${state.signature}`;
          return true;
        });
        // The planner's picture of the keys (how many devices are on the default) moves with them; autovacuum's
        // analyze may not run for a change of a few percent, and a stale one made deep pages sort every match.
        if (changed > 0) await sql`ANALYZE devices (firmware_key, rollout_firmware_id)`;
        if (marked) return true;
        break;
      }
    }
  }
  return false;
}
