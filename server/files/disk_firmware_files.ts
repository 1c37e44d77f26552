/**
 * Firmware files on the disk: `<firmwares dir>/<id>.xz`, never the client's name. A put is written to a `.part` file
 * in the temp directory (same file system, emptied at start) by a worker thread, flushed, then renamed into place.
 */
import { join } from "node:path";
import { newId } from "../../shared/ids.ts";
import { fileRangeStream } from "./byte_range.ts";
import { startFileWrite } from "./file_write.ts";
import type { FirmwareFiles, FirmwarePut } from "./firmware_files.ts";

const EXTENSION = ".xz";

export function diskFirmwareFiles(dirs: { firmwares: string; tmp: string }): FirmwareFiles {
  const pathOf = (id: string) => join(dirs.firmwares, `${id}${EXTENSION}`);
  const removeFile = (path: string) =>
    Deno.remove(path).catch((err) => {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    });

  return {
    put(id = newId()): FirmwarePut {
      const tmpPath = join(dirs.tmp, `${newId()}.part`);
      const writer = startFileWrite(tmpPath);
      let state: "open" | "committed" | "aborted" = "open";
      return {
        id,
        write: (chunk) => writer.write(chunk),
        copies: true, // into the writer's batch (file_write.ts)
        feed: (input) => writer.feed(input),
        finish: () => writer.finish(),
        async commit() {
          if (state !== "open") throw new Error(`This firmware file was already ${state}.`);
          await Deno.rename(tmpPath, pathOf(id));
          state = "committed";
        },
        async abort() {
          if (state !== "open") return;
          state = "aborted";
          await writer.close();
          await removeFile(tmpPath);
        },
      };
    },

    async open(id, range) {
      let file: Deno.FsFile;
      try {
        file = await Deno.open(pathOf(id), { read: true });
      } catch (err) {
        if (err instanceof Deno.errors.NotFound) return null;
        throw err;
      }
      if (!range) return file.readable;
      return fileRangeStream(file, range.start, range.end);
    },

    remove: (id) => removeFile(pathOf(id)),

    async list() {
      const ids: string[] = [];
      for await (const entry of Deno.readDir(dirs.firmwares)) {
        if (entry.isFile && entry.name.endsWith(EXTENSION)) ids.push(entry.name.slice(0, -EXTENSION.length));
      }
      return ids.sort();
    },

    async sweep(ids, { graceMs = 0 } = {}) {
      const expected = new Set(ids.map((id) => `${id}${EXTENSION}`));
      const removed: string[] = [];
      const before = Date.now() - graceMs;
      for await (const entry of Deno.readDir(dirs.firmwares)) {
        if (expected.delete(entry.name)) continue;
        const path = join(dirs.firmwares, entry.name);
        if (graceMs > 0 && ((await Deno.lstat(path)).mtime?.getTime() ?? 0) > before) continue;
        await Deno.remove(path, { recursive: true });
        removed.push(entry.name);
      }
      return { removed: removed.sort(), missing: [...expected].map((name) => name.slice(0, -EXTENSION.length)).sort() };
    },

    downloadUrl: () => Promise.resolve(null),
    check: () => Promise.resolve(),
  };
}
