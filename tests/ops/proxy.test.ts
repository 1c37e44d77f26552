/**
 * The bundled proxy configuration (deploy/nginx.conf) in front of a real server: what Deno's server cannot enforce
 * itself, the proxy does (docs/REQUIREMENTS.md §15). Its timeouts are shortened for the test (30 s and 60 s become 2 s); every other
 * line is the shipped file. Needs nginx (Debian: nginx-light; .ci/run installs it).
 */
import assert from "node:assert/strict";
import { freePort, listFiles, startServer } from "../../testing/server.ts";
import { makeXzFile } from "../../testing/files.ts";
import { fakeXz } from "./helpers.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

async function startProxy(upstreamPort: number) {
  const nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"].find((p) => {
    try {
      return Deno.statSync(p).isFile;
    } catch {
      return false;
    }
  });
  assert.ok(nginx, "nginx is not installed: apt-get install -y nginx-light (.ci/run does)");
  const dir = await Deno.makeTempDir({ prefix: "proxy-" });
  await Deno.chmod(dir, 0o755);
  const port = freePort();
  const shipped = await Deno.readTextFile(`${ROOT}deploy/nginx.conf`);
  const conf = shipped
    .replace("server console:8000;", `server 127.0.0.1:${upstreamPort};`)
    .replace("listen 8080;", `listen 127.0.0.1:${port};`)
    .replace("client_header_timeout 30s;", "client_header_timeout 2s;")
    .replace("client_body_timeout 60s;", "client_body_timeout 2s;")
    .replaceAll("/tmp/nginx", `${dir}/nginx`);
  assert.notEqual(conf, shipped);
  await Deno.writeTextFile(`${dir}/nginx.conf`, conf);
  const child = new Deno.Command(nginx, {
    args: ["-c", `${dir}/nginx.conf`, "-p", dir, "-g", "daemon off;"],
    stdout: "null",
    stderr: "piped",
  }).spawn();
  for (let i = 0; i < 100; i++) {
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    async [Symbol.asyncDispose]() {
      child.kill("SIGQUIT");
      await child.output();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** Resolves with how long the server took to close a connection that sent `text` and then nothing. */
async function closedAfter(port: number, text: string): Promise<number> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const started = Date.now();
  await conn.write(new TextEncoder().encode(text));
  const buf = new Uint8Array(4096);
  try {
    while (await conn.read(buf) !== null) { /* an error page, then the close */ }
  } catch { /* reset */ }
  conn.close();
  return Date.now() - started;
}

Deno.test("behind deploy/nginx.conf: the console works, stalled clients are dropped", async (t) => {
  await using srv = await startServer({ env: { TRUST_PROXY: "1" } });
  await using proxy = await startProxy(Number(new URL(srv.url).port));

  await t.step("sign-in, a streamed upload and its download pass through", async () => {
    const api = srv.client();
    const { token } = await api.login("admin@example.com", "admin-password-1");
    const dir = await Deno.makeTempDir();
    const file = await makeXzFile(dir, "through-proxy.xz", new Uint8Array(3 << 20).fill(9));
    const res = await fetch(`${proxy.url}/api/v1/device_firmwares`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "multipart/form-data; boundary=b" },
      body: multipartOf("through-proxy.xz", await Deno.readFile(file)),
    });
    assert.equal(res.status, 201, await res.clone().text());
    const fw = await res.json();
    const download = await fetch(`${proxy.url}/api/v1/device_firmwares/${fw._id}/file`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    assert.deepEqual(new Uint8Array(await download.arrayBuffer()), await Deno.readFile(file));
    await Deno.remove(dir, { recursive: true });
  });

  await t.step("40 connections that stall in their headers are all closed by the proxy", async () => {
    const waits = await Promise.all(
      Array.from({ length: 40 }, () => closedAfter(proxy.port, "GET /healthz HTTP/1.1\r\nHost: x\r\n")),
    );
    assert.ok(Math.max(...waits) < 6_000, `closed after ${Math.max(...waits)} ms`);
    assert.ok(Math.min(...waits) >= 1_500, `closed too early: ${Math.min(...waits)} ms`);
  });

  await t.step("an upload whose body stalls is cut off; the console removes its temp file", async () => {
    const { token } = await srv.client().login("admin@example.com", "admin-password-1");
    const content = fakeXz(2 << 20);
    const head = new TextEncoder().encode(
      `--b\r\nContent-Disposition: form-data; name="file"; filename="stall.xz"\r\n\r\n`,
    );
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: proxy.port });
    await conn.write(new TextEncoder().encode(
      `POST /api/v1/device_firmwares HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
        `Content-Type: multipart/form-data; boundary=b\r\nContent-Length: ${head.length + content.length + 8}\r\n\r\n`,
    ));
    await conn.write(head);
    await conn.write(content.subarray(0, 256 * 1024));
    let tmp: string[] = [];
    for (let i = 0; i < 40 && tmp.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      tmp = await listFiles(`${srv.dataDir}/tmp`);
    }
    assert.equal(tmp.length, 1, "the upload reached the console");
    for (let i = 0; i < 120 && tmp.length > 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      tmp = await listFiles(`${srv.dataDir}/tmp`);
    }
    conn.close();
    assert.deepEqual(tmp, [], "the temp file outlived the stalled upload");
  });
});

function multipartOf(name: string, bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  const te = new TextEncoder();
  const head = te.encode(
    `--b\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/xz\r\n\r\n`,
  );
  const tail = te.encode("\r\n--b--\r\n");
  const out = new Uint8Array(head.length + bytes.length + tail.length);
  out.set(head);
  out.set(bytes, head.length);
  out.set(tail, head.length + bytes.length);
  return out;
}
