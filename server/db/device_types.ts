import { deviceTypeName } from "../../shared/schemas/device_type.ts";
import { type Db, newId, sql } from "./mod.ts";

/** Creates the managed device type `jeecee_baby_<PRODUCT>` when missing. */
export function ensureDeviceType(db: Db, product: string): void {
  sql(db, "INSERT INTO device_types (id, name) VALUES (?, ?) ON CONFLICT(name) DO NOTHING")
    .run(newId(), deviceTypeName(product));
}
