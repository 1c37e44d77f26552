/**
 * The figures of docs/REQUIREMENTS.md §17 and §19 as the server is configured out of the box. The behaviour behind each is
 * tested with short settings (tests/ops/slow_clients.test.ts, tests/ops/stalled_upload.test.ts,
 * tests/server/audit_checkpoints.test.ts, the fault tests): this holds the defaults themselves to the contract, so a
 * changed default fails here rather than nowhere.
 */
import assert from "node:assert/strict";
import { ConfigError, parseConfig } from "../../server/config.ts";
import { PROBE_MS, SUSPECT_MS } from "../../server/db/postgres/watchdog.ts";
import { TIMEOUTS } from "../../server/db/postgres/open.ts";
import { S3_TIMEOUTS } from "../../server/files/s3_firmware_files.ts";

Deno.test("§19 defaults: headers within 30 s, an idle upload body 60 s, 1,000 half-open connections, the front on", () => {
  const c = parseConfig({});
  assert.equal(c.CONNECTION_GUARD, "1");
  assert.equal(c.HEADER_TIMEOUT_SECONDS, 30);
  // The front sees no bytes: a kept-alive connection's next header is held to the idle time from the last answer.
  assert.ok(c.IDLE_CONNECTION_SECONDS <= c.HEADER_TIMEOUT_SECONDS, "every header, first or next, within 30 s");
  assert.equal(c.BODY_IDLE_SECONDS, 60);
  assert.equal(c.MAX_HALF_OPEN_CONNECTIONS, 1000);
  assert.equal(c.DEVICE_AUTH_MAX_FAILURES, 30);
});

Deno.test("§17: the audit head is published at least every 10 minutes, never less often", () => {
  assert.equal(parseConfig({}).AUDIT_CHECKPOINT_SECONDS, 600);
  assert.throws(() => parseConfig({ AUDIT_CHECKPOINT_SECONDS: "601" }), ConfigError);
});

Deno.test("§19: a frozen database or bucket is given up within 2 s; a stopped one is tried again at once", () => {
  assert.ok(SUSPECT_MS + PROBE_MS < 2000, `PostgreSQL watchdog ${SUSPECT_MS} + ${PROBE_MS} ms`);
  assert.ok(S3_TIMEOUTS.suspectMs + S3_TIMEOUTS.probeMs < 2000, "bucket watch");
  assert.ok(2 * S3_TIMEOUTS.answerMs < 2000 && S3_TIMEOUTS.connectMs < 2000, "bucket requests");
  assert.ok(TIMEOUTS.reconnectSeconds <= 0.1, "reconnect delay");
});
