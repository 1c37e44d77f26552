/**
 * The kept firmware keys (docs/DECISIONS.md, "Firmware in effect, kept"): per device, the firmware the rollouts give it
 * (`rollout_firmware_id`) and its firmware in effect unless the default (`firmware_key`). A device write recomputes its
 * own keys in its transaction; a change of rollouts or default (firmware_keys.generation, bumped by triggers) is caught
 * up by syncKeys(), in slices of the fleet, each its own write transaction (requests run in between).
 *
 * Locks on PostgreSQL: a device write that computes its keys holds its device rows, then firmware_keys FOR SHARE; a
 * change of rollouts or default bumps firmware_keys.generation (triggers) after its own rows — the same order as a
 * status report (device, rollout, firmware_keys), so nothing waits in a circle, and no change commits between a device
 * write's read of the state and its commit. A sync slice runs under the write lock (one sync at a time, never beside
 * an operator's bulk change) and starts over when the state moved since its first slice.
 */
import { deviceTypeName } from "../../../shared/schemas/device_type.ts";
import { type KeysKeeper, keysKeeper } from "../keys_keeper.ts";
import {
  decidingRollouts,
  firmwareKeySql,
  type HoldingRollout,
  holdingRollouts,
  holdingRolloutsSql,
  KEYS_SYNC_SLICE,
  keysSignature,
  rolloutFirmwareSql,
} from "../rules/firmware_in_effect.ts";
import { all, dialect, type Engine, one, type Param, type Q, run, write, writeRetried } from "../runner.ts";
import { same } from "./dialect_sql.ts";

/** What the firmware filters and the overview decide from, read in the caller's transaction. */
export interface KeysState {
  defaultFirmware: string | null;
  /** The rollouts that decide some device's firmware, newest first (decidingRollouts). */
  rollouts: HoldingRollout[];
  signature: string;
  /** The kept columns are of this state: the filters may read them. */
  current: boolean;
  /** PostgreSQL: KEYS_STATE_SQL's text it was read from. */
  text?: string;
}

/** The state from its parts (PostgreSQL's overview reads them in its own round trip). */
export function keysStateOf(
  generation: number,
  kept: string | null,
  defaultFirmware: string | null,
  holding: HoldingRollout[],
): KeysState {
  const rollouts = decidingRollouts(holding, defaultFirmware);
  const signature = keysSignature(Number(generation), rollouts, defaultFirmware);
  return { defaultFirmware, rollouts, signature, current: kept === signature };
}

/**
 * This process's keepers (one per open store set). A reader's transaction does not name its database, so a reader
 * that finds the keys behind kicks them all: a keeper of another database finds its own keys current and stops.
 */
const keepers = new Set<KeysKeeper>();

/** The keeper that syncs in the background when a reader finds the keys behind; close() it before the database. */
export function keepKeys(engine: Engine): KeysKeeper {
  const keeper = keysKeeper((product, stopped) => syncKeys(engine, product, stopped));
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

/**
 * PostgreSQL's keys state as one value (one round trip): the firmware_keys row, the default firmware and the holding
 * rollouts as JSON text. Its text is the same as long as the state is: a statement that reads it again beside other
 * reads tells whether those were built from the state in force (stores/device_page.ts).
 */
export const KEYS_STATE_SQL = `(SELECT json_build_array(k.generation, k.kept,
    (SELECT default_firmware FROM device_types WHERE name = ?),
    (SELECT json_agg(json_build_array(r.id, r.firmware_id, r.product_type_id, r.state, r.stages, r.stage)
         ORDER BY r.seq DESC)
       FROM rollouts r JOIN firmwares f ON f.id = r.firmware_id
       WHERE r.state IN ('running', 'paused', 'finished') OR (r.state = 'cancelled' AND r.installed > 0)))::text
  FROM firmware_keys k)`;

/** KEYS_STATE_SQL's text as the state. */
export function keysStateOfText(text: string): KeysState {
  const [generation, kept, defaultFirmware, rows] = JSON.parse(text) as [
    number,
    string | null,
    string | null,
    [string, string, string | null, string, string, number][] | null,
  ];
  const holding = holdingRollouts(
    (rows ?? []).map(([id, firmware_id, product_type_id, state, stages, stage]) => (
      { id, firmware_id, product_type_id, state, stages, stage }
    )),
  );
  return { ...keysStateOf(Number(generation), kept ?? null, defaultFirmware ?? null, holding), text };
}

/** The state in force, in the caller's transaction (PostgreSQL: one statement, KEYS_STATE_SQL). */
export function* keysState(product: string): Q<KeysState> {
  const d = yield* dialect();
  if (d.engine === "postgres") {
    const row = (yield* one<{ keys: string }>(`SELECT ${KEYS_STATE_SQL} AS keys`, deviceTypeName(product)))!;
    return keysStateOfText(row.keys);
  }
  const row = (yield* one<{ generation: number; kept: string | null; default_firmware: string | null }>(
    `SELECT k.generation, k.kept,
       (SELECT default_firmware FROM device_types WHERE name = ?) AS default_firmware
     FROM firmware_keys k`,
    deviceTypeName(product),
  ))!;
  const holding = holdingRollouts((yield* all(holdingRolloutsSql(d.tieBreak("rollouts")))) as never);
  return keysStateOf(row.generation, row.kept ?? null, row.default_firmware ?? null, holding);
}

/** SQL text with `?` placeholders and the values they bind, in order. */
function bound(build: (p: (v: string | number) => string) => string): { sql: string; args: Param[] } {
  const args: Param[] = [];
  const text = build((v) => {
    args.push(v);
    return "?";
  });
  return { sql: text, args };
}

/**
 * Recomputes the keys of the devices `where` selects (over alias d), in the caller's transaction; writes only the rows
 * whose keys change; answers how many rows changed.
 */
function* refreshKeys(state: KeysState, where: string, whereArgs: readonly Param[]): Q<number> {
  const d = yield* dialect();
  const given = bound((p) => rolloutFirmwareSql(state.rollouts, p, d.bucket));
  const text = d.engine === "sqlite" ? "" : "::text";
  const first = yield* run(
    `UPDATE devices AS u SET rollout_firmware_id = x.r
     FROM (SELECT d.device_id, ${given.sql}${text} AS r FROM devices d WHERE ${where}) x
     WHERE u.device_id = x.device_id AND NOT (${same(d, "u.rollout_firmware_id", "x.r")})`,
    ...given.args,
    ...whereArgs,
  );
  const key = bound((p) => firmwareKeySql(state.defaultFirmware, p));
  const second = yield* run(
    `UPDATE devices AS d SET firmware_key = ${key.sql} WHERE ${where} AND NOT (${same(d, "d.firmware_key", key.sql)})`,
    ...key.args,
    ...whereArgs,
    ...key.args,
  );
  return first + second;
}

/**
 * A device write's own keys (its insert, its product type or custom firmware changed), after its rows are written, in
 * its transaction, for the PRODUCT the syncs run for (none ran yet: nothing to do, no filter trusts the keys before
 * the first sync ends).
 */
export function* refreshDeviceKeys(where: string, whereArgs: readonly Param[]): Q<void> {
  const d = yield* dialect();
  const { product } = (yield* one<{ product: string | null }>(
    `SELECT product FROM firmware_keys${d.engine === "sqlite" ? "" : " FOR SHARE"}`,
  ))!;
  if (product === null) return;
  const state = yield* keysState(product);
  // SQLite's writer kicks the sync when it finds the keys behind, as its readers do.
  if (d.engine === "sqlite") kickWhenBehind(state, product);
  yield* refreshKeys(state, where, whereArgs);
}

const yieldToRequests = () => new Promise((resolve) => setTimeout(resolve, 0));

type Slice = { step: "again" | "done" | "last" | "more"; end: string | null; n: number };

/**
 * Brings every device's keys to the current state: slices of KEYS_SYNC_SLICE devices in deviceId order, each its own
 * write transaction (requests run in between); starts over when the state moves meanwhile; the state is marked kept
 * after the last slice. Answers whether the keys are current.
 */
export async function syncKeys(engine: Engine, product: string, stopped = () => false): Promise<boolean> {
  for (let attempt = 0; attempt < 5; attempt++) {
    if (stopped()) return false;
    const first = await engine.run(keysState(product));
    if (first.current) return true;
    // In a transaction of its own: no device row is held while firmware_keys' row is (see the locks above).
    await engine.run(write(function* () {
      const d = yield* dialect();
      yield* run(`UPDATE firmware_keys SET product = ? WHERE NOT (${same(d, "product", "?")})`, product, product);
    }));
    let after = "";
    let changed = 0;
    for (;;) {
      if (stopped()) return false;
      // The slice's outcome is applied once its transaction committed (a retried one starts from the same place).
      const { step, end, n } = await engine.run(writeRetried(function* (): Q<Slice> {
        const state = yield* keysState(product);
        if (state.signature !== first.signature) return { step: "again", end: null, n: 0 };
        // another replica's sync got there first
        if (state.current) return { step: "done", end: null, n: 0 };
        const row = yield* one<{ device_id: string }>(
          "SELECT device_id FROM devices WHERE device_id > ? ORDER BY device_id LIMIT 1 OFFSET ?",
          after,
          KEYS_SYNC_SLICE - 1,
        );
        if (row === undefined) {
          return { step: "last", end: null, n: yield* refreshKeys(state, "d.device_id > ?", [after]) };
        }
        return {
          step: "more",
          end: row.device_id,
          n: yield* refreshKeys(state, "d.device_id > ? AND d.device_id <= ?", [after, row.device_id]),
        };
      }));
      changed += n;
      if (end !== null) after = end;
      if (step === "done") return true;
      if (step === "again") break;
      if (step === "last") {
        // Marked in a transaction of its own, which holds no counter row while it waits for firmware_keys' row (a
        // check-in computing its keys holds that row FOR SHARE and then takes counter rows).
        const marked = await engine.run(write(function* () {
          const state = yield* keysState(product);
          if (state.signature !== first.signature) return false;
          yield* run("UPDATE firmware_keys SET kept = ?", state.signature);
          return true;
        }));
        // PostgreSQL's picture of the keys (how many devices are on the default) moves with them; autovacuum's analyze
        // may not run for a change of a few percent, and a stale one made deep pages sort every match.
        if (changed > 0 && engine.dialect.engine === "postgres") {
          await engine.run(run("ANALYZE devices (firmware_key, rollout_firmware_id)"));
        }
        if (marked) return true;
        break;
      }
      await yieldToRequests();
    }
  }
  return false;
}
