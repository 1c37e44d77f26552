/** Files for uploads: xz-compressed firmware made with the machine's `xz`, and upload sources streamed from disk. */

/** Compresses bytes with the `xz` tool and writes `<dir>/<name>`; returns its path. */
export async function makeXzFile(
  dir: string,
  name: string,
  content: Uint8Array | string = `firmware ${name}`,
): Promise<string> {
  const input = typeof content === "string" ? new TextEncoder().encode(content) : content;
  const child = new Deno.Command("xz", { args: ["-z", "-c", "-0"], stdin: "piped", stdout: "piped" }).spawn();
  // Collect the output while writing: a large input would otherwise fill both pipes and deadlock.
  const output = child.output();
  const writer = child.stdin.getWriter();
  await writer.write(input);
  await writer.close();
  const out = await output;
  if (out.code !== 0) throw new Error("xz failed");
  const path = `${dir}/${name}`;
  await Deno.writeFile(path, out.stdout);
  return path;
}

/** An UploadSource for the shared client from a file on disk (streamed, never read whole). */
export async function fileSource(path: string, name = path.split("/").pop()!) {
  const { size } = await Deno.stat(path);
  return {
    name,
    size,
    stream: () => {
      const file = Deno.openSync(path, { read: true });
      return file.readable;
    },
  };
}

/** An in-memory upload with a given name (the shared client streams it as multipart). */
export function bytesSource(name: string, bytes: Uint8Array) {
  return { name, size: bytes.byteLength, stream: () => ReadableStream.from([bytes]) };
}
