/**
 * Records that cannot lie (docs/REQUIREMENTS.md §17), on SQLite and on PostgreSQL (scripts/test.ts runs this file on both): the
 * lone surrogate and the NUL in every place a string enters (the sign-in, path ids, query values, JSON bodies of every
 * route, the device calls, multipart parts) are refused alike, never with a 500; a failed sign-in with such an e-mail
 * is audited with the e-mail escaped; then a seeded fuzz of every operation of the OpenAPI document with hostile
 * strings; and at the end `audit-verify` holds the chain to the latest checkpoint the server logged.
 */
import assert from "node:assert/strict";
import type { AuditEntry, AuditList } from "../../shared/schemas/audit.ts";
import { ddiRoutes, routeList, type RouteName, routes } from "../../shared/routes/mod.ts";
import { escapeText } from "../../shared/text_rule.ts";
import { DEVICE_API_KEY } from "../../testing/server.ts";
import { HOSTILE_STRINGS, type Json, multipart, paths, prng, setAt } from "../helpers/hostile.ts";
import { idRoutes, jsonRoutes, samplesFor, uploadRoutes } from "./samples.ts";
import {
  assertNoInternalErrors,
  describe,
  Findings,
  rawPath,
  refused,
  type Res,
  sane,
  send,
  startAudit,
} from "./setup.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const BAD_TEXT = [{ label: "NUL", value: "a\u0000b" }, { label: "lone surrogate", value: "a\ud800b" }];
/** Percent-encoded forms of what no stored string may hold: NUL, a surrogate's UTF-8 form, bytes that are not UTF-8. */
const BAD_RAW = ["%00", "a%00b", "%ED%A0%80", "x%ED%B0%80y", "%FF", "%C0%80"];
const FUZZ_ITERATIONS = 8;
const FUZZ_SEED = 0x17ec;

/** Valid DDI bodies the fuzz makes hostile (as SWUpdate sends them). */
const DDI_BODIES: Record<string, Json> = {
  ddiDeploymentFeedback: { status: { execution: "closed", result: { finished: "success" }, details: ["done"] } },
  ddiCancelFeedback: { status: { execution: "closed", result: { finished: "success" }, details: ["stopped"] } },
  ddiConfigData: { data: { board: "rpi4" } },
};

Deno.test("records: one text rule at the edge on every route, a verifying chain, the latest checkpoint held", async (t) => {
  await using s = await startAudit({ LOG_FORMAT: "json", AUDIT_CHECKPOINT_SECONDS: "1" });
  const { srv, token } = s;
  const get = (path: string) => send(srv, "GET", path, { token });
  const head = async () => ((await get("/api/v1/audit?rowsPerPage=1")).json as AuditList).total;

  await t.step("sign-in: a strange e-mail is refused like any unknown one and audited, escaped", async () => {
    const f = new Findings();
    const emails = ["\ud800@x.test", "a\u0000b", "\udfff", 'q"\\\u0000@x.test'];
    for (const email of emails) {
      const r = await send(srv, "POST", "/api/v1/login", { json: { email, password: "whatever-pass-1" } });
      const label = `POST login ${JSON.stringify(email)}`;
      refused(f, label, r, [401], { code: "invalid_credentials" });
      const last = ((await get("/api/v1/audit?rowsPerPage=1&action=auth.sign_in_failed")).json as AuditList).data[0];
      f.check(label, () => {
        assert.equal(last.details.email, escapeText(email));
        assert.equal(last.details.escaped, true);
        assert.equal(last.actor.name, escapeText(email));
      });
    }
    // A NUL in the password of a known e-mail: a failed sign-in, the e-mail as it is.
    const r = await send(srv, "POST", "/api/v1/login", {
      json: { email: "admin@example.com", password: "x\u0000y-password" },
    });
    refused(f, "POST login (NUL in the password)", r, [401], { code: "invalid_credentials" });
    f.done();
  });

  /** Entries other than failed sign-ins (a security event the trail keeps even for a refused request). */
  const changes = async () =>
    await head() - ((await get("/api/v1/audit?rowsPerPage=1&action=auth.sign_in_failed")).json as AuditList).total;
  const before = await changes();

  await t.step("path ids holding a NUL or malformed UTF-8: 404 on every route with a path id", async () => {
    const f = new Findings();
    for (const { route, body } of idRoutes(s)) {
      for (const raw of BAD_RAW) {
        const path = rawPath(route, raw);
        const auth = route.auth === "device" ? { token: DEVICE_API_KEY } : route.auth === "public" ? {} : { token };
        const r = await send(srv, route.method, path, { ...auth, ...(body ? { json: body("x") } : {}) });
        if (route.method === "HEAD") f.check(`HEAD ${path}`, () => assert.equal(r.status, 404));
        else refused(f, `${route.method} ${path}`, r, [404], { code: "not_found" });
      }
    }
    f.done();
  });

  await t.step("query values holding a NUL or malformed UTF-8: 400 naming the parameter", async () => {
    const f = new Findings();
    const samples = samplesFor(s);
    for (const route of routeList) {
      if (route.method !== "GET" || !route.query) continue;
      const params = samples[route.name as RouteName].probe?.params;
      const base = `/api/v1${route.path.replace(/:([A-Za-z_]+)/g, (_, k) => encodeURIComponent(params?.[k] ?? "x"))}`;
      const auth = route.auth === "device" ? { token: DEVICE_API_KEY } : { token };
      for (const name of [...Object.keys((route.query as unknown as { shape: object }).shape), "unknown"]) {
        for (const raw of ["%00", "%ED%A0%80", "a%FFb"]) {
          const r = await send(srv, "GET", `${base}?${name}=${raw}`, auth);
          refused(f, `GET ${base}?${name}=${raw}`, r, [400], { code: "invalid_request", field: name });
        }
      }
    }
    f.done();
  });

  await t.step(
    "JSON bodies of every route, device calls included: a NUL or lone surrogate anywhere is 400",
    async () => {
      const f = new Findings();
      for (const route of jsonRoutes(s)) {
        const base = await route.base();
        const where = paths(base).filter((p) => typeof p.reduce<unknown>((v, k) => (v as never)[k], base) === "string");
        const cases: [string, Json][] = where.flatMap((p) =>
          BAD_TEXT.map(({ label, value }) => [`${p.join(".")} ${label}`, setAt(base, p, value)] as [string, Json])
        );
        if (base !== null && typeof base === "object" && !Array.isArray(base)) {
          cases.push(["a member name with a NUL", setAt(base, ["x\u0000y"], "z")]);
        }
        for (const [what, body] of cases) {
          const r = await send(srv, route.method, route.path, {
            ...(route.auth === "device" ? { token: DEVICE_API_KEY } : route.auth === "public" ? {} : { token }),
            json: body,
          });
          const label = `${route.label} [${what}]`;
          if (route.login) refused(f, label, r, [401, 429]);
          else refused(f, label, r, [400], { code: "invalid_request", field: what.split(" ")[0] });
        }
      }
      f.done();
    },
  );

  await t.step("multipart: a NUL in the file name or in a text field is 400", async () => {
    const f = new Findings();
    for (const route of uploadRoutes(s)) {
      const data = await route.data();
      const bodies = [
        [{ name: route.field, filename: `a\u0000b${route.extension}`, data }],
        [{ name: "note", data: "a\u0000b" }, { name: route.field, filename: route.name, data }],
      ];
      for (const parts of bodies) {
        const r = await send(srv, "POST", route.path, {
          token,
          body: multipart("records", parts),
          contentType: "multipart/form-data; boundary=records",
        });
        refused(f, `POST ${route.path} ${JSON.stringify(parts.map((p) => p.name))}`, r, [400]);
      }
    }
    f.done();
  });

  await t.step("the refusals left no entry in the trail", async () => assert.equal(await changes(), before));

  await t.step(`fuzz: every operation of the OpenAPI document, ${FUZZ_ITERATIONS} hostile requests each`, async () => {
    const f = new Findings();
    const doc = (await send(srv, "GET", "/api/v1/openapi.json")).json as {
      paths: Record<string, Record<string, OpenApiOperation>>;
    };
    const samples = samplesFor(s);
    const bodies = new Map(jsonRoutes(s).map((r) => [r.route.name, r]));
    const uploads = new Map(uploadRoutes(s).map((r) => [r.route.name, r]));
    let n = 0;
    for (const [template, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        // hawkBit DDI's operations (not in the console's table: no samples) are fuzzed with the gateway credential.
        const ddi = ddiRoutes[op.operationId as keyof typeof ddiRoutes];
        const route = routes[op.operationId as RouteName] ?? ddi;
        const sample = samples[op.operationId as RouteName] ?? {};
        const rng = prng(FUZZ_SEED + n++);
        for (let i = 0; i < FUZZ_ITERATIONS; i++) {
          const valid = sample.probe?.params ?? sample.json?.params ?? {};
          const path = template.replace(
            /\{([A-Za-z_]+)\}/g,
            (_, k) => rng.next() < 0.3 && valid[k] ? encodeURIComponent(valid[k]) : rng.pick(HOSTILE_PATH),
          );
          const query = (op.parameters ?? []).filter((p) => p.in === "query" && rng.next() < 0.7)
            .map((p) => `${p.name}=${rng.pick(HOSTILE_QUERY)}`);
          if (rng.next() < 0.2) query.push(`${rng.pick(HOSTILE_QUERY)}=${rng.pick(HOSTILE_QUERY)}`);
          const url = `${path}${query.length ? `?${query.join("&")}` : ""}`;
          const auth = ddi
            ? { auth: `GatewayToken ${DEVICE_API_KEY}` }
            : route.auth === "device"
            ? { token: DEVICE_API_KEY }
            : route.auth === "public"
            ? {}
            : { token };
          let body: Pick<Parameters<typeof send>[3] & object, "json" | "body" | "contentType"> = {};
          const jsonRoute = bodies.get(route.name);
          const upload = uploads.get(route.name);
          if (jsonRoute) body = { json: hostileBody(rng, await jsonRoute.base()) };
          else if (ddi && route.method !== "GET" && route.method !== "HEAD") {
            body = { json: hostileBody(rng, DDI_BODIES[ddi.name] ?? {}) };
          } else if (upload) {
            const filename = rng.pick([...HOSTILE_STRINGS.map((h) => h.value), "a\u0000.xz", "x.xz"]);
            body = {
              body: multipart("fuzz", [
                { name: rng.pick(["note", upload.field]), data: rng.pick(HOSTILE_STRINGS).value },
                { name: upload.field, filename, data: await upload.data() },
              ]),
              contentType: "multipart/form-data; boundary=fuzz",
            };
          }
          const r: Res = await send(srv, method.toUpperCase(), url, { ...auth, ...body });
          const label = `${method.toUpperCase()} ${url.slice(0, 160)} seed=${FUZZ_SEED + n - 1} i=${i}`;
          if (method === "head") f.check(label, () => assert.ok(r.status < 500, describe(r)));
          else sane(f, label, r);
          if (f.list.length > 40) break;
        }
      }
    }
    f.check("operations fuzzed", () => assert.ok(n >= 60, `only ${n} operations in the OpenAPI document`));
    f.done();
  });

  await t.step("audit-verify with the latest checkpoint the server logged: intact", async () => {
    const count = await head();
    let latest: { count: number; hash: string } | undefined;
    for (let i = 0; i < 200 && latest?.count !== count; i++) {
      await new Promise((r) => setTimeout(r, 100));
      latest = checkpoints(srv.output()).at(-1);
    }
    assert.equal(latest?.count, count, "no checkpoint of the head in the log");
    const file = `${s.tmp}/checkpoint.json`;
    await Deno.writeTextFile(file, JSON.stringify(latest));
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", `${ROOT}scripts/audit_verify.ts`, "--checkpoint", file],
      cwd: ROOT,
      env: { DATA_DIR: srv.dataDir, ...srv.engineEnv },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const out = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
    assert.equal(code, 0, out);
    assert.match(out, new RegExp(`Audit trail intact: ${count} entries.*the latest ${count}`));
    // What was stored reads back as the failed sign-ins recorded it.
    const strange = ((await get("/api/v1/audit?rowsPerPage=100&action=auth.sign_in_failed")).json as AuditList).data
      .filter((e: AuditEntry) => e.details.escaped === true);
    assert.ok(strange.some((e) => e.details.email === "\\ud800@x.test"), JSON.stringify(strange.map((e) => e.details)));
  });

  await t.step("the server logged no internal error", () => assertNoInternalErrors(srv));
});

interface OpenApiOperation {
  operationId: string;
  parameters?: { name: string; in: string }[];
}

/** Path parameters as sent (raw, percent-encoded): the rule's cases and the usual hostile ids. */
const HOSTILE_PATH = [
  ...BAD_RAW,
  "x".repeat(3000),
  "..%2F..%2Fetc%2Fpasswd",
  "%F0%9F%A6%84",
  "%",
  "%25",
  "%0A",
  "%20",
  "unknown-1",
  "0",
];

/** Query names and values as sent. */
const HOSTILE_QUERY = [
  ...BAD_RAW,
  ...HOSTILE_STRINGS.filter((h) => h.value.isWellFormed()).map((h) => encodeURIComponent(h.value)),
  "1e999",
  "-1",
  "99999999999999999999",
  "%25",
  "a+b",
  "[]",
];

/** A valid body with one or two strings (or the whole body) replaced by hostile text, NUL and lone surrogates first. */
function hostileBody(rng: ReturnType<typeof prng>, base: Json): Json {
  const pool = [...BAD_TEXT.map((b) => b.value), ...HOSTILE_STRINGS.map((h) => h.value), "\udfff", "x".repeat(70_000)];
  const all = paths(base);
  if (!all.length || rng.next() < 0.1) return rng.pick(pool);
  let body = base;
  for (let k = 0; k < 1 + rng.int(2); k++) {
    const now = paths(body);
    if (now.length) body = setAt(body, rng.pick(now), rng.pick(pool));
  }
  return body;
}

const checkpoints = (output: string) =>
  output.split("\n").filter((l) => l.includes('"audit.checkpoint"')).map((l) =>
    JSON.parse(l) as { count: number; hash: string }
  );
