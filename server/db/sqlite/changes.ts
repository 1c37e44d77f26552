/**
 * Whether anything the operator's statement reads (operators, api_tokens, the devices' change counter) may have changed
 * since a generation was read, known from the database itself and exactly (docs/DECISIONS.md, "An operator's statement
 * answered from memory on SQLite"):
 * - this connection's writes: TEMP triggers on those tables call a function that bumps the generation, inside the
 *   writing statement (a write to the counter row, not to each devices row: the devices' own triggers move it);
 * - any other connection's commit (another process on the file — `deno task user reset-password`, a newer release's
 *   migration —, or another connection of this one): every commit in WAL mode rewrites the WAL index's header in the
 *   -shm file (its change counter, the last frame, salts and checksums), which is read here (one pread, no lock) on each
 *   call. While it is as last seen, nothing committed; when it moved, `PRAGMA data_version` (which moves only for other
 *   connections' commits) tells another connection's commit, which bumps the generation, from this connection's own.
 * `null` when the header cannot be read as SQLite writes it: the caller then reads the database.
 */
import { closeSync, fstatSync, openSync, readSync, statSync } from "node:fs";
import { type Db, sql } from "./open.ts";

const WATCHED = ["operators", "api_tokens"];

/** The WAL index's header as SQLite keeps it: two copies of 48 bytes, the second written first. */
const HEADER_WORDS = 12;
const WAL_INDEX_VERSION = 3007000;

export interface Changes {
  /** The generation now, or null when it cannot be known (the caller reads the database). */
  generation(): number | null;
  close(): void;
}

/** Installs the triggers on `db`'s connection and watches `file`'s -shm; null where no -shm file is kept. */
export function watchChanges(db: Db, file: string): Changes | null {
  if (file === ":memory:" || Deno.build.os === "windows") return null;
  let held: Held;
  try {
    held = holdShm(`${file}-shm`);
  } catch {
    return null;
  }
  const fd = held.fd;
  let generation = 0;
  db.function("console_credentials_changed", () => {
    generation++;
    return null;
  });
  for (const table of WATCHED) {
    for (const event of ["INSERT", "UPDATE", "DELETE"]) {
      db.exec(
        `CREATE TEMP TRIGGER IF NOT EXISTS ${table}_${event.toLowerCase()}_remembered AFTER ${event} ON main.${table}
               BEGIN SELECT console_credentials_changed(); END`,
      );
    }
  }
  for (const event of ["INSERT", "UPDATE", "DELETE"]) {
    const row = event === "DELETE" ? "OLD" : "NEW";
    db.exec(`CREATE TEMP TRIGGER IF NOT EXISTS change_counters_${event.toLowerCase()}_remembered
             AFTER ${event} ON main.change_counters WHEN ${row}.name = 'devices'
             BEGIN SELECT console_credentials_changed(); END`);
  }
  const bytes = new Uint8Array(HEADER_WORDS * 8);
  const words = new Int32Array(bytes.buffer);
  const seen = new Int32Array(HEADER_WORDS);
  let seenValid = false;
  let dataVersion = readDataVersion(db);

  /** The header's two copies read and equal, and SQLite's (version, initialised): otherwise false. */
  const readHeader = (): boolean => {
    if (readSync(fd, bytes, 0, bytes.length, 0) !== bytes.length) return false;
    for (let i = 0; i < HEADER_WORDS; i++) if (words[i] !== words[i + HEADER_WORDS]) return false;
    return words[0] === WAL_INDEX_VERSION && (words[3] & 0xff) === 1;
  };

  return {
    generation() {
      if (!db.isOpen) return null;
      try {
        if (!readHeader()) {
          seenValid = false;
          return null;
        }
        let same = seenValid;
        for (let i = 0; same && i < HEADER_WORDS; i++) same = words[i] === seen[i];
        if (same) return generation;
        // Read before data_version: a commit after this read moves the header again, so it is looked at next time.
        seen.set(words.subarray(0, HEADER_WORDS));
        const version = readDataVersion(db);
        if (version !== dataVersion) generation++, dataVersion = version;
        seenValid = true;
        return generation;
      } catch {
        seenValid = false;
        return null;
      }
    },
    close: () => letGo(held),
  };
}

/**
 * The -shm files' descriptors, one per file (device and inode) for the whole process. Closing a descriptor drops every
 * POSIX lock the process holds on that file — SQLite's on the -shm for every connection of this process still open on
 * it (a stream's reader, a second store) — so one is closed only once nothing uses it here and SQLite has removed the
 * file (its last connection closed), checked whenever a watch ends.
 */
interface Held {
  readonly key: string;
  readonly path: string;
  readonly fd: number;
  users: number;
}
const shmFiles = new Map<string, Held>();

const keyOf = (s: { dev: number; ino: number }) => `${s.dev}:${s.ino}`;

function holdShm(path: string): Held {
  let h = shmFiles.get(keyOf(statSync(path)));
  if (h === undefined) {
    const fd = openSync(path, "r");
    const key = keyOf(fstatSync(fd));
    h = shmFiles.get(key) ?? { key, path, fd, users: 0 };
    shmFiles.set(key, h);
  }
  h.users++;
  return h;
}

function letGo(h: Held): void {
  h.users--;
  for (const other of shmFiles.values()) {
    if (other.users > 0) continue;
    let current: string | null = null;
    try {
      current = keyOf(statSync(other.path));
    } catch {
      // removed
    }
    if (current === other.key) continue;
    shmFiles.delete(other.key);
    try {
      closeSync(other.fd);
    } catch {
      // closed already
    }
  }
}

const readDataVersion = (db: Db) =>
  Number((sql(db, "PRAGMA data_version").get() as { data_version: number }).data_version);
