import { join } from "node:path";
import type { Paths } from "../context.ts";

/** Where a firmware's file lives: `<firmwares dir>/<id>.xz`, never the client's name. */
export const firmwarePath = (paths: Paths, id: string) => join(paths.firmwares, `${id}.xz`);
