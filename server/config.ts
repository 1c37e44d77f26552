import * as z from "zod";

const int = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.string().trim().regex(/^\d+$/, "must be a whole number").transform(Number).pipe(
    z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`),
  );

export const ConfigSchema = z.object({
  PORT: int(0, 65535).default(8000),
  HOST: z.string().trim().min(1, "must not be empty").default("127.0.0.1"),
  /** Default ./data, or ./data-demo with DEMO=1 (see parseConfig). */
  DATA_DIR: z.string().trim().min(1, "must not be empty").optional(),
  ADMIN_EMAIL: z.string().trim().regex(/^[^\s@]+@[^\s@]+$/, "must be an e-mail address").optional(),
  ADMIN_PASSWORD: z.string().min(8, "must be at least 8 characters long").optional(),
  JWT_SECRET: z.string().min(32, "must be at least 32 characters long").optional(),
  TOKEN_TTL_SECONDS: int(60, 31_536_000).default(43200),
  PRODUCT: z.string().trim().regex(/^[A-Za-z0-9_-]{1,64}$/, "must be 1-64 letters, digits, '_' or '-'").default(
    "default",
  ),
  MAX_FIRMWARE_BYTES: int(1).default(1_073_741_824),
  MAX_IMPORT_BYTES: int(1).default(268_435_456),
  DEVICE_API_KEY: z.string().min(16, "must be at least 16 characters long").optional(),
  /** docs/REQUIREMENTS.md §11: shared (one DEVICE_API_KEY for the fleet) or token (DEVICE_API_KEY enrols, each device its token). */
  DEVICE_AUTH: z.enum(["shared", "token"], { message: "must be shared or token" }).default("shared"),
  /** DEVICE_AUTH=token: an unknown device waits for an operator (manual) or gets its token at once (auto). */
  DEVICE_ADMISSION: z.enum(["manual", "auto"], { message: "must be manual or auto" }).default("manual"),
  /**
   * DEVICE_AUTH=token: failed device authentications one address may make per minute before its device calls are
   * refused with 429 (the wait doubles with each further minute of failures).
   */
  DEVICE_AUTH_MAX_FAILURES: int(1, 100_000).default(30),
  /** hawkBit DDI (docs/REQUIREMENTS.md §18): the tenant of /{tenant}/controller/v1/..., compared case-insensitively. */
  DDI_TENANT: z.string().trim().regex(/^[A-Za-z0-9_-]{1,64}$/, "must be 1-64 letters, digits, '_' or '-'").default(
    "DEFAULT",
  ),
  /** hawkBit DDI: how long devices sleep between polls (the poll's config.polling.sleep). */
  DDI_POLL_SECONDS: int(1, 86_400).default(300),
  DEMO: z.enum(["0", "1", ""], { message: "must be 1 or 0" }).optional(),
  LOG_LEVEL: z.enum(["info", "quiet"], { message: "must be info or quiet" }).default("info"),
  LOG_FORMAT: z.enum(["text", "json"], { message: "must be text or json" }).default("text"),
  /** GET /metrics needs it as a bearer token; unset: /metrics is 404. */
  METRICS_TOKEN: z.string().min(16, "must be at least 16 characters long").optional(),
  SHUTDOWN_GRACE_SECONDS: int(0, 3600).default(8),
  /** How often the audit chain's head is published (log, bucket) when it moved; at most 10 minutes (docs/REQUIREMENTS.md §17). */
  AUDIT_CHECKPOINT_SECONDS: int(1, 600).default(600),
  /** An upload or import whose body sends nothing for this long is aborted and its partial file removed. */
  BODY_IDLE_SECONDS: int(1, 3600).default(60),
  /**
   * 1 (default): the public port is the in-process front that drops slow clients (server/lib/connection_front.ts);
   * relay: the same rules by the older relay front (server/lib/guarded_serve.ts); 0: Deno.serve alone, for a server
   * reachable only through a proxy that does it (deploy/nginx.conf).
   */
  CONNECTION_GUARD: z.enum(["0", "1", "relay"], { message: "must be 1, relay or 0" }).default("1"),
  /** A request's header must arrive within this long, or its connection is closed (server/lib/guarded_serve.ts). */
  HEADER_TIMEOUT_SECONDS: int(1, 3600).default(30),
  /** A kept-alive connection that sends and receives nothing this long after an answer is closed. */
  IDLE_CONNECTION_SECONDS: int(1, 86_400).default(30),
  /** At most this many connections wait for a request at once; one more closes the one waiting longest. */
  MAX_HALF_OPEN_CONNECTIONS: int(1, 1_000_000).default(1000),
  TRUST_PROXY: z.enum(["0", "1", ""], { message: "must be 1 or 0" }).optional(),
  /** PostgreSQL instead of the SQLite file in DATA_DIR (docs/REQUIREMENTS.md §10). */
  DATABASE_URL: z.string().trim().regex(
    /^postgres(ql)?:\/\/[^\s]+$/,
    "must be a postgres://user:password@host:port/db URL",
  ).optional(),
  /** Connections per server process (with DATABASE_URL). */
  DATABASE_POOL_SIZE: int(1, 1000).default(10),
  /** Firmware files in this bucket instead of DATA_DIR/firmwares (docs/REQUIREMENTS.md §10). */
  S3_BUCKET: z.string().trim().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, "must be a bucket name").optional(),
  S3_ENDPOINT: z.url({ message: "must be a URL such as http://minio:9000" }).optional(),
  S3_PREFIX: z.string().regex(/^([^/][^\0]*\/)?$/, "must be empty or end in / (and not start with /)").default(""),
  S3_FORCE_PATH_STYLE: z.enum(["0", "1"], { message: "must be 1 or 0" }).optional(),
  AWS_REGION: z.string().trim().min(1).default("us-east-1"),
  FIRMWARE_DOWNLOAD: z.enum(["proxy", "redirect"], { message: "must be proxy or redirect" }).default("proxy"),
  FIRMWARE_URL_TTL_SECONDS: int(1, 604_800).default(900),
  /** 1: every firmware upload must carry a signature by a registered, unrevoked release key (docs/REQUIREMENTS.md §20). */
  REQUIRE_SIGNED_FIRMWARE: z.enum(["0", "1"], { message: "must be 1 or 0" }).default("0"),
  /** 1: two-person release: a new firmware is pending until another operator or admin approves it (§20). */
  RELEASE_APPROVALS: z.enum(["0", "1"], { message: "must be 1 or 0" }).default("0"),
});

export type Config = Omit<z.output<typeof ConfigSchema>, "DATA_DIR"> & {
  DATA_DIR: string;
  demo: boolean;
  /** TRUST_PROXY=1: the client address is the last X-Forwarded-For entry (see server/auth/client_address.ts). */
  trustProxy: boolean;
  /** Where firmware files live: the disk (default) or the S3_* bucket. */
  firmwareStore: { kind: "disk" } | {
    kind: "s3";
    bucket: string;
    endpoint?: string;
    prefix: string;
    forcePathStyle: boolean;
    region: string;
  };
};

export class ConfigError extends Error {}

/** Parses the environment once; a bad value throws one line naming the variable. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const picked: Record<string, string> = {};
  for (const key of Object.keys(ConfigSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== "") picked[key] = value;
  }
  const result = ConfigSchema.safeParse(picked);
  if (!result.success) {
    const issue = result.error.issues[0];
    const name = String(issue.path[0] ?? "environment");
    throw new ConfigError(`Invalid configuration: ${name} ${issue.message}.`);
  }
  if (!!result.data.ADMIN_EMAIL !== !!result.data.ADMIN_PASSWORD) {
    throw new ConfigError("Invalid configuration: ADMIN_EMAIL and ADMIN_PASSWORD must be set together.");
  }
  const demo = result.data.DEMO === "1";
  const d = result.data;
  if (!d.S3_BUCKET && d.FIRMWARE_DOWNLOAD === "redirect") {
    throw new ConfigError("Invalid configuration: FIRMWARE_DOWNLOAD=redirect needs S3_BUCKET (firmware in a bucket).");
  }
  return {
    ...d,
    DATA_DIR: d.DATA_DIR ?? (demo ? "./data-demo" : "./data"),
    demo,
    trustProxy: d.TRUST_PROXY === "1",
    firmwareStore: d.S3_BUCKET
      ? {
        kind: "s3",
        bucket: d.S3_BUCKET,
        endpoint: d.S3_ENDPOINT,
        prefix: d.S3_PREFIX,
        // Path-style by default with an endpoint of one's own (MinIO, Ceph): its buckets are rarely DNS names.
        forcePathStyle: (d.S3_FORCE_PATH_STYLE ?? (d.S3_ENDPOINT ? "1" : "0")) === "1",
        region: d.AWS_REGION,
      }
      : { kind: "disk" },
  };
}

export function loadConfig(): Config {
  return parseConfig(Deno.env.toObject());
}
