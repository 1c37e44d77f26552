/**
 * The Prometheus series of GET /metrics (docs/REQUIREMENTS.md §14), in prom-client's default registry. Counted where the work
 * happens: requests in app.ts, uploads in lib/upload.ts, check-ins and firmware bytes in the routes, store errors in
 * app.onError; devices by admission and audit entries are read from the database at each scrape (registered by
 * app.ts; docs/DECISIONS.md, "Metrics").
 */
import client from "prom-client";

client.collectDefaultMetrics({ prefix: "console_" });

type RequestLabels = { route: string; method: string; status: string };

/** One series of console_http_requests_total and of console_http_request_duration_seconds. */
interface RequestSeries {
  labels: RequestLabels;
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative), the last one past every bound. */
  buckets: Float64Array;
}

const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];
/** route → method → status → series: found without making a key (a bounded set: route patterns). */
const requestSeries = new Map<string, Map<string, Map<number, RequestSeries>>>();

/**
 * Counts an answered request: console_http_requests_total and console_http_request_duration_seconds, by route
 * pattern, method and status. Counted by hand, because this is every request's path: prom-client's inc() and
 * observe() validate and hash the label set and allocate on every call (docs/DECISIONS.md, "The fixed work of a
 * request"); the series are the same, given to the registry at each scrape.
 */
export function countRequest(route: string, method: string, status: number, seconds: number): void {
  let byMethod = requestSeries.get(route);
  if (!byMethod) requestSeries.set(route, byMethod = new Map());
  let byStatus = byMethod.get(method);
  if (!byStatus) byMethod.set(method, byStatus = new Map());
  let series = byStatus.get(status);
  if (!series) {
    series = { labels: { route, method, status: String(status) }, count: 0, sum: 0, buckets: new Float64Array(13) };
    byStatus.set(status, series);
  }
  series.count++;
  series.sum += seconds;
  let i = 0;
  while (i < REQUEST_BUCKETS.length && seconds > REQUEST_BUCKETS[i]) i++;
  series.buckets[i]++;
}

function* eachRequestSeries(): Generator<RequestSeries> {
  for (const byMethod of requestSeries.values()) for (const byStatus of byMethod.values()) yield* byStatus.values();
}

type MetricValue = { labels: Record<string, string | number>; value: number; metricName?: string };

/** A metric the registry reads as it reads prom-client's own (get() at each scrape, reset()). */
function registerRequestMetric(name: string, help: string, type: "counter" | "histogram", values: () => MetricValue[]) {
  const metric = {
    name,
    help,
    type,
    aggregator: "sum",
    get: () => Promise.resolve({ name, help, type, aggregator: "sum", values: values() }),
    reset: () => requestSeries.clear(),
  };
  client.register.registerMetric(metric as unknown as client.Metric);
}

registerRequestMetric(
  "console_http_requests_total",
  "HTTP requests answered, by route pattern, method and status.",
  "counter",
  () => [...eachRequestSeries()].map((s) => ({ labels: s.labels, value: s.count })),
);

const DURATION = "console_http_request_duration_seconds";
registerRequestMetric(
  DURATION,
  "Time to answer an HTTP request (until the handler returned; a streamed body may flow longer).",
  "histogram",
  () =>
    [...eachRequestSeries()].flatMap((s) => {
      let acc = 0;
      const out: MetricValue[] = REQUEST_BUCKETS.map((le, i) => ({
        labels: { ...s.labels, le },
        value: acc += s.buckets[i],
        metricName: `${DURATION}_bucket`,
      }));
      out.push(
        { labels: { ...s.labels, le: "+Inf" }, value: s.count, metricName: `${DURATION}_bucket` },
        { labels: s.labels, value: s.sum, metricName: `${DURATION}_sum` },
        { labels: s.labels, value: s.count, metricName: `${DURATION}_count` },
      );
      return out;
    }),
);

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
