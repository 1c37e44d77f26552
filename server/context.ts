import { join } from "node:path";
import type { Config } from "./config.ts";
import type { Operator, PolledDevice, Stores } from "./db/stores.ts";
import type { FirmwareFiles } from "./files/firmware_files.ts";
import type { RequestLine } from "./lib/logger.ts";
import type { Scope } from "../shared/schemas/api_token.ts";

export interface Paths {
  data: string;
  db: string;
  /** The disk's firmware files (server/files/disk_firmware_files.ts). */
  firmwares: string;
  /** Uploads and imports in progress; emptied at start. */
  tmp: string;
}

export function pathsFor(dataDir: string): Paths {
  return {
    data: dataDir,
    db: join(dataDir, "console.sqlite3"),
    firmwares: join(dataDir, "firmwares"),
    tmp: join(dataDir, "tmp"),
  };
}

/** Everything a route needs, made once at start and passed to each route factory. */
export interface AppContext {
  config: Config;
  /** The database, whatever the engine: routes see only the store interfaces. */
  stores: Stores;
  /** The firmware files, wherever they are kept: routes see only this interface. */
  files: FirmwareFiles;
  secret: string;
  paths: Paths;
  log: (line: string) => void;
  /** One line per request (method, path, status, ms); batched by the logger. */
  logRequest: (line: RequestLine) => void;
}

/** The API token a request authenticated with (absent for an operator's session token). */
export interface RequestApiToken {
  id: string;
  name: string;
  scopes: readonly Scope[];
}

/**
 * `operator`: who is signed in (for an API token, its owner as they are now); `apiToken`: set for a token;
 * `devicesVersion`: the devices' change counter, read with the operator (GET devices' page cache goes by it).
 */
export type AppEnv = {
  Variables: {
    operator: Operator;
    apiToken?: RequestApiToken;
    devicesVersion?: number;
    /** A poll's device row as its token guard read it (DEVICE_AUTH=token): handed to the store's poll. */
    polledDevice?: PolledDevice;
  };
};
