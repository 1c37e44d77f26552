/** Where firmware files are kept, chosen once at start from the configuration (CONTRACT §10). */
import type { Config } from "../config.ts";
import type { Paths } from "../context.ts";
import { diskFirmwareFiles } from "./disk_firmware_files.ts";
import type { FirmwareFiles } from "./firmware_files.ts";
import { s3FirmwareFiles } from "./s3_firmware_files.ts";

export function openFirmwareFiles(config: Pick<Config, "firmwareStore">, paths: Paths): FirmwareFiles {
  const store = config.firmwareStore;
  return store.kind === "s3" ? s3FirmwareFiles(store) : diskFirmwareFiles(paths);
}
