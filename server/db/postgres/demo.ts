import type { DemoData, DemoStore } from "../types/demo.ts";
import { demoIsEmpty, seedDemoRest } from "../stores/demo.ts";
import { driveIn } from "./runner.ts";
import { type Sql, type Tx, write } from "./open.ts";
import { importIn } from "./treatments.ts";

async function seedDemo(tx: Tx, data: DemoData): Promise<void> {
  await importIn(tx, data.treatments);
  await driveIn(tx, seedDemoRest(data));
}

export function postgresDemo(sql: Sql): DemoStore {
  return {
    isEmpty: () => driveIn(sql, demoIsEmpty()),
    seed: (data) => write(sql, (tx) => seedDemo(tx, data)),
  };
}
