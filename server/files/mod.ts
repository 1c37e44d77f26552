/**
 * Where firmware files are kept, chosen once at start from the configuration (docs/REQUIREMENTS.md §10). The bucket's module (and
 * the AWS SDK with it) is loaded only when S3_BUCKET is set, so a server on the disk does not carry it.
 */
import type { Config } from "../config.ts";
import type { Paths } from "../context.ts";
import { diskFirmwareFiles } from "./disk_firmware_files.ts";
import type { FirmwareFiles } from "./firmware_files.ts";

export async function openFirmwareFiles(
  config: Pick<Config, "firmwareStore" | "MAX_FIRMWARE_BYTES">,
  paths: Paths,
): Promise<FirmwareFiles> {
  const store = config.firmwareStore;
  if (store.kind === "disk") return diskFirmwareFiles(paths);
  const { s3FirmwareFiles } = await import("./s3_firmware_files.ts");
  return s3FirmwareFiles({ ...store, maxObjectBytes: config.MAX_FIRMWARE_BYTES });
}
