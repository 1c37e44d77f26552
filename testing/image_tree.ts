/**
 * The file tree of the Docker image's last stage, built without docker: the final stage's COPY lines of the Dockerfile
 * are carried out on a temp dir, its `COPY --from=deps …/node_modules` by installing deploy/image/deno.json (the
 * runtime import map, pinned by deploy/image/deno.lock) as the deps stage does, its `COPY --from=build …/web/dist` by
 * a placeholder page (the bundle is not what is checked here).
 */
import { join } from "node:path";

const ROOT = new URL("../", import.meta.url).pathname;

export interface ImageTree extends AsyncDisposable {
  dir: string;
  /** The COPY lines of the final stage, as written. */
  copies: string[];
}

/** The final stage's COPY lines (after the last FROM), each as its words. */
export async function finalStageCopies(dockerfile = join(ROOT, "Dockerfile")): Promise<string[][]> {
  const lines = (await Deno.readTextFile(dockerfile)).split("\n");
  const last = lines.findLastIndex((l) => /^FROM\s/i.test(l));
  return lines.slice(last + 1).filter((l) => /^COPY\s/i.test(l)).map((l) => l.trim().split(/\s+/).slice(1));
}

async function run(cmd: string, args: string[], opts: { cwd: string; env?: Record<string, string> }): Promise<void> {
  const out = await new Deno.Command(cmd, { args, ...opts, stdout: "piped", stderr: "piped" }).output();
  if (!out.success) {
    const dec = new TextDecoder();
    throw new Error(`${cmd} ${args.join(" ")}: exit ${out.code}\n${dec.decode(out.stdout)}${dec.decode(out.stderr)}`);
  }
}

/** Builds the tree; the npm install uses the caller's DENO_DIR and registry, as `docker build` has the network. */
export async function buildImageTree(): Promise<ImageTree> {
  const dir = await Deno.makeTempDir({ prefix: "image-tree-" });
  const copies: string[] = [];
  for (const words of await finalStageCopies()) {
    copies.push(words.join(" "));
    const from = words.find((w) => w.startsWith("--from="))?.slice("--from=".length);
    const [sources, dest] = [words.filter((w) => !w.startsWith("--")).slice(0, -1), words.at(-1)!];
    const target = join(dir, dest);
    if (from === "deps" && sources[0].endsWith("/node_modules")) {
      const deps = await Deno.makeTempDir({ prefix: "image-deps-" });
      try {
        for (const f of ["deno.json", "deno.lock"]) await Deno.copyFile(join(ROOT, "deploy/image", f), join(deps, f));
        await run(Deno.execPath(), ["install", "--frozen"], { cwd: deps });
        await run("cp", ["-a", join(deps, "node_modules"), target], { cwd: dir });
      } finally {
        await Deno.remove(deps, { recursive: true });
      }
    } else if (from === "build" && sources[0].endsWith("/web/dist")) {
      await Deno.mkdir(target, { recursive: true });
      await Deno.writeTextFile(join(target, "index.html"), "<!doctype html><title>placeholder</title>");
    } else if (from) {
      throw new Error(`image tree: no rule for ${words.join(" ")}`);
    } else {
      const intoDir = dest.endsWith("/") || sources.length > 1;
      if (intoDir) await Deno.mkdir(target, { recursive: true });
      else await Deno.mkdir(join(target, ".."), { recursive: true });
      for (const source of sources) {
        await run("cp", ["-a", join(ROOT, source), intoDir ? join(target, source.split("/").at(-1)!) : target], {
          cwd: dir,
        });
      }
    }
  }
  return {
    dir,
    copies,
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}
