/**
 * A real S3 protocol server for the tests: npm's s3rver under Node, on a free port, with one bucket, in a temp
 * directory removed on stop. `TEST_FIRMWARE_STORE=s3` makes every test server (testing/server.ts) keep its firmware
 * files in one of these instead of DATA_DIR (scripts/test.ts runs the firmware suites that way).
 */
import { ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { s3FirmwareFiles } from "../server/files/s3_firmware_files.ts";

const ROOT = new URL("../", import.meta.url).pathname;
export const TEST_BUCKET = "firmware-test";
/** s3rver accepts any signature made with these. */
const CREDENTIALS = { AWS_ACCESS_KEY_ID: "S3RVER", AWS_SECRET_ACCESS_KEY: "S3RVER" };

export const firmwareStoreUnderTest = () => Deno.env.get("TEST_FIRMWARE_STORE") === "s3" ? "s3" : "disk";

export interface TestBucket extends AsyncDisposable {
  endpoint: string;
  /** The server's environment for this bucket (S3_BUCKET, S3_ENDPOINT, credentials). */
  env: Record<string, string>;
  /** Keys under `prefix`, sorted. */
  keys(prefix?: string): Promise<string[]>;
  /** Stops the S3 server (the bucket becomes unreachable); start() brings it back on the same port and data. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** SIGSTOP to the S3 server (connections open, nothing answers); thaw() resumes it. */
  freeze(): void;
  thaw(): void;
}

/** Node, when installed and s3rver is in node_modules (deno install puts it there). */
function nodeForS3rver(): string | null {
  try {
    Deno.statSync(`${ROOT}node_modules/s3rver/package.json`);
    const found = new Deno.Command("node", { args: ["--version"], stdout: "null", stderr: "null" }).outputSync();
    return found.success ? "node" : null;
  } catch {
    return null;
  }
}

export async function startBucket(): Promise<TestBucket> {
  const node = nodeForS3rver();
  const dir = await Deno.makeTempDir({ prefix: "s3rver-" });
  let port = 0;
  let child: Deno.ChildProcess | null = null;

  const start = async () => {
    let proc: Deno.ChildProcess;
    try {
      // Node runs it when there is one (s3rver is a Node program); else Deno's Node compatibility does.
      proc = new Deno.Command(node ?? Deno.execPath(), {
        args: [...(node ? [] : ["run", "-A"]), `${ROOT}testing/s3rver_main.mjs`, dir, TEST_BUCKET, String(port)],
        cwd: ROOT,
        stdout: "piped",
        stderr: "piped",
      }).spawn();
    } catch (err) {
      throw new Error(`cannot run s3rver (${err})`);
    }
    const reader = proc.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let out = "";
    const deadline = setTimeout(() => proc.kill("SIGKILL"), 20_000);
    while (!/listening (\d+)/.test(out)) {
      const { value, done } = await reader.read();
      if (done) {
        clearTimeout(deadline);
        throw new Error(`s3rver did not start: ${out}${await new Response(proc.stderr).text()}`);
      }
      out += value;
    }
    clearTimeout(deadline);
    reader.releaseLock();
    proc.stdout.cancel().catch(() => {});
    proc.stderr.cancel().catch(() => {});
    port = Number(/listening (\d+)/.exec(out)![1]);
    child = proc;
  };
  let frozen = false;
  const thaw = () => {
    if (frozen && child) child.kill("SIGCONT");
    frozen = false;
  };
  const stop = async () => {
    thaw();
    if (!child) return;
    child.kill("SIGKILL");
    await child.status;
    child = null;
  };
  await start();

  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    region: "us-east-1",
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: CREDENTIALS.AWS_ACCESS_KEY_ID, secretAccessKey: CREDENTIALS.AWS_SECRET_ACCESS_KEY },
  });
  return {
    endpoint,
    env: { S3_BUCKET: TEST_BUCKET, S3_ENDPOINT: endpoint, ...CREDENTIALS },
    async keys(prefix = "") {
      const out = await client.send(new ListObjectsV2Command({ Bucket: TEST_BUCKET, Prefix: prefix }));
      return (out.Contents ?? []).map((o) => o.Key!).sort();
    },
    stop,
    start,
    freeze() {
      child?.kill("SIGSTOP");
      frozen = true;
    },
    thaw,
    async [Symbol.asyncDispose]() {
      client.destroy();
      await stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

/** The server's firmware store on a test bucket, as the server opens it (its credentials put in this process's env). */
export function bucketFirmwareFiles(bucket: TestBucket, maxObjectBytes?: number) {
  for (const [k, v] of Object.entries(bucket.env)) if (k.startsWith("AWS_")) Deno.env.set(k, v);
  return s3FirmwareFiles({
    bucket: bucket.env.S3_BUCKET,
    endpoint: bucket.endpoint,
    prefix: "",
    forcePathStyle: true,
    region: "us-east-1",
    minSweepGraceMs: 0,
    maxObjectBytes,
  });
}
