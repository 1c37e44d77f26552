/** `deno task audit-verify` run against a test server's database, as an auditor runs it. */
import type { TestServer } from "../../testing/server.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

export async function auditVerify(
  srv: TestServer,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<{ code: number; out: string }> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}scripts/audit_verify.ts`, ...args],
    cwd: ROOT,
    env: { DATA_DIR: srv.dataDir, ...srv.engineEnv, ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const d = new TextDecoder();
  return { code, out: d.decode(stdout) + d.decode(stderr) };
}
