/**
 * The Prometheus series of GET /metrics (docs/REQUIREMENTS.md §14), in prom-client's default registry. Counted where the work
 * happens: requests in app.ts, uploads in lib/upload.ts, check-ins and firmware bytes in the routes, store errors in
 * app.onError; devices by admission and audit entries are read from the database at each scrape (registered by
 * app.ts; docs/DECISIONS.md, "Metrics").
 */
import client from "prom-client";

client.collectDefaultMetrics({ prefix: "console_" });

export const requests = new client.Counter({
  name: "console_http_requests_total",
  help: "HTTP requests answered, by route pattern, method and status.",
  labelNames: ["route", "method", "status"] as const,
});

type RequestLabels = { route: string; method: string; status: string };
const labelSets = new Map<string, RequestLabels>();
/** The label set of a request's series, made once per route, method and status (a bounded set: route patterns). */
export function requestLabels(route: string, method: string, status: number): RequestLabels {
  const key = `${status} ${method} ${route}`;
  let labels = labelSets.get(key);
  if (!labels) labelSets.set(key, labels = { route, method, status: String(status) });
  return labels;
}

export const requestSeconds = new client.Histogram({
  name: "console_http_request_duration_seconds",
  help: "Time to answer an HTTP request (until the handler returned; a streamed body may flow longer).",
  labelNames: ["route", "method", "status"] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
});

export const uploadBytes = new client.Counter({
  name: "console_upload_bytes_total",
  help: "Bytes of uploaded files received (firmware uploads and treatment imports), stored or not.",
  labelNames: ["kind"] as const,
});

export const checkins = new client.Counter({
  name: "console_device_checkins_total",
  help: "Device check-ins answered.",
});

export const enrolments = new client.Counter({
  name: "console_device_enrolments_total",
  help: "Device tokens issued by enrolment (DEVICE_AUTH=token).",
});

/**
 * Devices by admission (docs/REQUIREMENTS.md §14), read from the database at each scrape (three count queries on an index) by
 * the function the server registers at start.
 */
let admissionSource: (() => Promise<Record<string, number>>) | null = null;
export function countDevicesByAdmission(source: () => Promise<Record<string, number>>) {
  admissionSource = source;
}
new client.Gauge({
  name: "console_devices",
  help: "Devices by admission state (pending, accepted, rejected; all accepted with DEVICE_AUTH=shared).",
  labelNames: ["admission"] as const,
  async collect() {
    if (!admissionSource) return;
    try {
      const counts = await admissionSource();
      for (const [admission, n] of Object.entries(counts)) this.set({ admission }, n);
    } catch {
      // The database is down: the series keeps its last values; console_store_errors_total tells the rest.
    }
  },
});

export const statusReports = new client.Counter({
  name: "console_device_status_reports_total",
  help: "Device update reports recorded, by state.",
  labelNames: ["state"] as const,
});

export const firmwareBytesServed = new client.Counter({
  name: "console_firmware_bytes_served_total",
  help: "Firmware bytes sent to devices and operators by the console (not those a presigned URL serves).",
  labelNames: ["to"] as const,
});

export const firmwareRedirects = new client.Counter({
  name: "console_firmware_redirects_total",
  help: "Device firmware downloads redirected to a presigned URL of the bucket.",
});

export const storeErrors = new client.Counter({
  name: "console_store_errors_total",
  help: "Requests that failed in a store: the database or the firmware files (unreachable, full, or an error).",
  labelNames: ["store", "kind"] as const,
});

export const connectionsDropped = new client.Counter({
  name: "console_connections_dropped_total",
  help:
    "Connections the server closed for being slow (docs/REQUIREMENTS.md §19): header_timeout, idle, evicted (over " +
    "MAX_HALF_OPEN_CONNECTIONS) or header_too_large.",
  labelNames: ["reason"] as const,
});

/** Where the audit entry count is read at each scrape (set once by the app: the database's counter row). */
let auditCount: (() => Promise<number>) | null = null;
export const countAuditEntriesWith = (count: () => Promise<number>) => void (auditCount = count);

export const auditEntries = new client.Counter({
  name: "console_audit_entries_total",
  help: "Entries in the audit trail: the database's count, the same on every replica (entries are never removed).",
  async collect() {
    if (!auditCount) return;
    try {
      const n = await auditCount();
      this.reset();
      this.inc(n);
    } catch {
      // The database cannot be reached: the last value stands (console_store_errors_total tells why).
    }
  },
});

/** The audit chain's head (docs/REQUIREMENTS.md §17), read at each scrape: its count, and its hash as an info series' label. */
let auditHead: (() => Promise<{ count: number; hash: string }>) | null = null;
export const auditHeadWith = (head: () => Promise<{ count: number; hash: string }>) => void (auditHead = head);
let lastHead: { count: number; hash: string } | null = null;
const readHead = async () => {
  if (!auditHead) return null;
  try {
    return lastHead = await auditHead();
  } catch {
    return lastHead; // the database cannot be reached: the last value stands
  }
};

new client.Gauge({
  name: "console_audit_head_count",
  help: "Entries in the audit chain up to its head (a checkpoint's count; compare with published checkpoints).",
  async collect() {
    const head = await readHead();
    if (head) this.set(head.count);
  },
});

new client.Gauge({
  name: "console_audit_head_info",
  help: "The audit chain's head: 1, labelled with its count and the last entry's hash.",
  labelNames: ["count", "hash"] as const,
  async collect() {
    const head = await readHead();
    if (!head) return;
    this.reset();
    this.set({ count: String(head.count), hash: head.hash }, 1);
  },
});

export const metricsText = () => client.register.metrics();
export const METRICS_CONTENT_TYPE = client.register.contentType;

/** Counts the bytes of a response body as they are sent. */
export function countedBody(
  body: ReadableStream<Uint8Array>,
  counter: { inc(n: number): void },
): ReadableStream<Uint8Array> {
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        counter.inc(chunk.byteLength);
        controller.enqueue(chunk);
      },
    }),
  );
}
