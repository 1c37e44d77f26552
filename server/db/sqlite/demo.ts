import type { DemoData, DemoStore } from "../types/demo.ts";
import { demoIsEmpty, seedDemoRest } from "../stores/demo.ts";
import { drive } from "./runner.ts";
import { type Db, transaction } from "./open.ts";
import { writeTreatments } from "./treatments.ts";

function seedDemo(db: Db, data: DemoData): void {
  writeTreatments(db, data.treatments);
  drive(db, seedDemoRest(data));
}

export function sqliteDemo(db: Db): DemoStore {
  // Async only in name: each call runs to its end when made (a transaction never spans an await).
  return {
    // deno-lint-ignore require-await
    isEmpty: async () => drive(db, demoIsEmpty()),
    // deno-lint-ignore require-await
    seed: async (data) => transaction(db, () => seedDemo(db, data)),
  };
}
