/**
 * The one typed client of /api/v1, used by the web app, the CLI and the tests.
 * Every non-2xx answer becomes an ApiError here, once.
 */
import * as z from "zod";
import {
  ChangePasswordBody,
  CheckinBody,
  Device,
  DeviceConfig,
  DeviceList,
  DeviceListQuery,
  DevicePatch,
  DeviceType,
  DeviceTypePatch,
  ErrorBody,
  Firmware,
  ImportResult,
  LoginResponse,
  ProductType,
  ProductTypePatch,
  Treatment,
} from "./schemas/mod.ts";
import { collectChunks } from "./collect_chunks.ts";

/** SPEC §8: the data layer's error kinds; HTTP_ERROR carries the status. */
export type ErrorKind = "FETCH_ERROR" | "TIMEOUT_ERROR" | "PARSING_ERROR" | "HTTP_ERROR";

export class ApiError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly url: string,
    readonly status?: number,
    readonly code?: string,
  ) {
    super(message);
    this.name = "ApiError";
  }
  /** The server's msg, or a sentence for the kind of failure. */
  get msg(): string {
    return this.message;
  }
}

/** A file to upload: a browser File/Blob, or a stream with a known size (CLI). */
export type UploadSource =
  | Blob
  | { name: string; size: number; stream: () => ReadableStream<Uint8Array> };

export type Progress = { loaded: number; total: number };

/** Optional controls of an upload: abort it, and learn when every byte was sent (the server still works). */
export interface UploadOptions {
  signal?: AbortSignal;
  onSent?: () => void;
}

export interface ClientOptions {
  /** Origin of the console, e.g. "http://127.0.0.1:8000"; "" for same-origin in the browser. */
  baseUrl?: string;
  /** Returns the bearer token for each call. */
  token?: () => string | null | undefined;
  /** Called on any 401 (the web app returns to the sign-in form). */
  onUnauthorized?: () => void;
  /** Timeout of ordinary calls in ms (uploads have none). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

type Method = "GET" | "POST" | "PATCH" | "DELETE";

export class ApiClient {
  readonly baseUrl: string;
  #opts: ClientOptions;

  constructor(opts: ClientOptions = {}) {
    this.#opts = opts;
    this.baseUrl = (opts.baseUrl ?? "").replace(/\/+$/, "");
  }

  url(path: string): string {
    return `${this.baseUrl}/api/v1/${path}`;
  }

  #headers(extra: Record<string, string> = {}): Record<string, string> {
    const token = this.#opts.token?.();
    return token ? { ...extra, Authorization: `Bearer ${token}` } : extra;
  }

  /** Sends a request and returns the raw successful Response (non-2xx, other than `init.accept`, throws ApiError). */
  async raw(
    method: Method,
    path: string,
    body?: unknown,
    init: { headers?: Record<string, string>; accept?: readonly number[] } = {},
  ): Promise<Response> {
    const url = this.url(path);
    const doFetch = this.#opts.fetch ?? fetch;
    const timeoutMs = this.#opts.timeoutMs ?? 30_000;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    let res: Response;
    try {
      const headers = this.#headers(init.headers);
      if (body !== undefined) headers["Content-Type"] = "application/json";
      res = await doFetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: controller.signal,
      });
    } catch (err) {
      if (controller.signal.aborted) {
        throw new ApiError("TIMEOUT_ERROR", `No answer from ${url} within ${timeoutMs / 1000} s.`, url);
      }
      throw new ApiError("FETCH_ERROR", `Could not reach ${url}: ${reason(err)}`, url);
    } finally {
      clearTimeout(timer);
    }
    if (!res.ok && !init.accept?.includes(res.status)) throw await this.#httpError(res, url);
    return res;
  }

  async #httpError(res: Response, url: string): Promise<ApiError> {
    if (res.status === 401) this.#opts.onUnauthorized?.();
    const text = await res.text().catch(() => "");
    return httpErrorFrom(res.status, res.statusText, text, url);
  }

  async #json<T>(schema: z.ZodType<T>, method: Method, path: string, body?: unknown): Promise<T> {
    const res = await this.raw(method, path, body);
    return parseBody(schema, await res.text(), res.url || this.url(path));
  }

  async #none(method: Method, path: string): Promise<void> {
    const res = await this.raw(method, path);
    await res.body?.cancel();
  }

  // Operators
  login(email: string, password: string) {
    return this.#json(LoginResponse, "POST", "login", { email, password });
  }
  changePassword(body: ChangePasswordBody) {
    return this.#json(z.object({}), "POST", "change_password", body);
  }

  // Devices
  listDevices(query: { page?: number; rowsPerPage?: number; q?: string } = {}) {
    const params = new URLSearchParams();
    const q = query satisfies Partial<Record<keyof DeviceListQuery, unknown>>;
    if (q.page !== undefined) params.set("page", String(q.page));
    if (q.rowsPerPage !== undefined) params.set("rowsPerPage", String(q.rowsPerPage));
    if (q.q) params.set("q", q.q);
    const qs = params.toString();
    return this.#json(DeviceList, "GET", `devices${qs ? `?${qs}` : ""}`);
  }
  getDevice(deviceId: string) {
    return this.#json(Device, "GET", `devices/${enc(deviceId)}`);
  }
  patchDevice(patch: DevicePatch) {
    return this.#json(Device, "PATCH", `devices/${enc(patch.deviceId)}`, patch);
  }
  deleteDevice(deviceId: string) {
    return this.#none("DELETE", `devices/${enc(deviceId)}`);
  }

  // Device types
  listDeviceTypes() {
    return this.#json(z.array(DeviceType), "GET", "device_types");
  }
  patchDeviceType(body: DeviceTypePatch) {
    return this.#json(DeviceType, "PATCH", `device_types/${enc(body._id)}`, body);
  }

  // Firmwares
  listFirmwares() {
    return this.#json(z.array(Firmware), "GET", "device_firmwares");
  }
  uploadFirmware(file: UploadSource, onProgress?: (p: Progress) => void, opts?: UploadOptions) {
    return this.upload(Firmware, "device_firmwares", file, onProgress, opts);
  }
  deleteFirmware(id: string) {
    return this.#none("DELETE", `device_firmwares/${enc(id)}`);
  }
  firmwareFile(id: string) {
    return this.raw("GET", `device_firmwares/${enc(id)}/file`);
  }

  // Treatments
  listTreatments() {
    return this.#json(z.array(Treatment), "GET", "treatments");
  }
  getTreatment(id: string) {
    return this.#json(Treatment, "GET", `treatments/${enc(id)}`);
  }
  importTreatments(file: UploadSource, onProgress?: (p: Progress) => void, opts?: UploadOptions) {
    return this.upload(ImportResult, "treatments/import", file, onProgress, opts);
  }
  async treatmentImage(id: string): Promise<Blob> {
    const res = await this.raw("GET", `treatment_images/${enc(id)}`);
    return res.blob();
  }

  // Product types
  listProductTypes() {
    return this.#json(z.array(ProductType), "GET", "product_types");
  }
  createProductType(name: string) {
    return this.#json(ProductType, "POST", "product_types", { name });
  }
  getProductType(id: string) {
    return this.#json(ProductType, "GET", `product_types/${enc(id)}`);
  }
  patchProductType(body: ProductTypePatch) {
    return this.#json(ProductType, "PATCH", `product_types/${enc(body._id)}`, body);
  }
  deleteProductType(id: string) {
    return this.#none("DELETE", `product_types/${enc(id)}`);
  }

  /** Multipart upload of one field `file`, with progress; streams, never buffers the file. */
  async upload<T>(
    schema: z.ZodType<T>,
    path: string,
    file: UploadSource,
    onProgress?: (p: Progress) => void,
    opts: UploadOptions = {},
  ): Promise<T> {
    const url = this.url(path);
    const { status, statusText, text } =
      typeof XMLHttpRequest !== "undefined" && file instanceof Blob && !this.#opts.fetch
        ? await xhrUpload(url, this.#headers(), file, onProgress, opts)
        : await streamUpload(this.#opts.fetch ?? fetch, url, this.#headers(), file, onProgress, opts);
    if (status < 200 || status > 299) {
      if (status === 401) this.#opts.onUnauthorized?.();
      throw httpErrorFrom(status, statusText, text, url);
    }
    return parseBody(schema, text, url);
  }
}

/** The client a device uses (CONTRACT §6), authenticated with the fleet's DEVICE_API_KEY. */
export class DeviceClient {
  #api: ApiClient;
  constructor(readonly deviceId: string, opts: Omit<ClientOptions, "token"> & { apiKey: string }) {
    this.#api = new ApiClient({ ...opts, token: () => opts.apiKey });
  }
  #path(rest: string) {
    return `device/${enc(this.deviceId)}/${rest}`;
  }
  async checkin(body: CheckinBody): Promise<DeviceConfig> {
    const res = await this.#api.raw("POST", this.#path("checkin"), body);
    return parseBody(DeviceConfig, await res.text(), res.url);
  }
  async config(): Promise<DeviceConfig> {
    const res = await this.#api.raw("GET", this.#path("config"));
    return parseBody(DeviceConfig, await res.text(), res.url);
  }
  /**
   * The firmware download (200, or 206 for a Range); pass headers such as Range or If-None-Match.
   * A 304 (the ETag still matches) is an answer, not a failure: it resolves with that empty Response.
   */
  firmware(headers: Record<string, string> = {}): Promise<Response> {
    return this.#api.raw("GET", this.#path("firmware"), undefined, { headers, accept: [304] });
  }
}

const enc = encodeURIComponent;

/** The most specific reason of a network failure (fetch wraps the real one in `cause`). */
function reason(err: unknown): string {
  let e = err as { message?: string; cause?: unknown };
  while (e?.cause && typeof e.cause === "object") e = e.cause as typeof e;
  return e?.message ?? String(err);
}

function parseBody<T>(schema: z.ZodType<T>, text: string, url: string): T {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ApiError("PARSING_ERROR", `The answer from ${url} is not JSON.`, url);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new ApiError("PARSING_ERROR", `The answer from ${url} has an unexpected shape.`, url);
  }
  return parsed.data;
}

function httpErrorFrom(status: number, statusText: string, text: string, url: string): ApiError {
  let body: ErrorBody | undefined;
  try {
    const parsed = ErrorBody.safeParse(JSON.parse(text));
    if (parsed.success) body = parsed.data;
  } catch { /* not JSON: fall back to the status text */ }
  const msg = body?.msg ?? (`${status} ${statusText}`.trim() || `HTTP ${status}`);
  return new ApiError("HTTP_ERROR", msg, url, status, body?.error);
}

function fileName(file: UploadSource): string {
  return "name" in file && typeof file.name === "string" ? file.name : "upload";
}

function xhrUpload(
  url: string,
  headers: Record<string, string>,
  file: Blob,
  onProgress?: (p: Progress) => void,
  { signal, onSent }: UploadOptions = {},
): Promise<{ status: number; statusText: string; text: string }> {
  return new Promise((resolve, reject) => {
    const aborted = () => new ApiError("FETCH_ERROR", `The upload to ${url} was aborted.`, url);
    if (signal?.aborted) return reject(aborted());
    const xhr = new XMLHttpRequest();
    const abort = () => xhr.abort();
    signal?.addEventListener("abort", abort, { once: true });
    const settle = () => signal?.removeEventListener("abort", abort);
    xhr.open("POST", url);
    for (const [k, v] of Object.entries(headers)) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => onProgress?.({ loaded: e.loaded, total: e.lengthComputable ? e.total : file.size });
    xhr.upload.onload = () => onSent?.();
    xhr.onload = () => {
      settle();
      resolve({ status: xhr.status, statusText: xhr.statusText, text: xhr.responseText });
    };
    xhr.onerror = () => {
      settle();
      reject(new ApiError("FETCH_ERROR", `Could not reach ${url}.`, url));
    };
    xhr.onabort = () => {
      settle();
      reject(aborted());
    };
    const form = new FormData();
    form.append("file", file, fileName(file));
    xhr.send(form);
  });
}

async function streamUpload(
  doFetch: typeof fetch,
  url: string,
  headers: Record<string, string>,
  file: UploadSource,
  onProgress?: (p: Progress) => void,
  { signal, onSent }: UploadOptions = {},
): Promise<{ status: number; statusText: string; text: string }> {
  const boundary = `----console${crypto.randomUUID().replaceAll("-", "")}`;
  const safeName = fileName(file).replace(/[\r\n"]/g, (ch) => encodeURIComponent(ch));
  const te = new TextEncoder();
  const head = te.encode(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${safeName}"\r\n` +
      `Content-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = te.encode(`\r\n--${boundary}--\r\n`);
  const total = file.size;
  let loaded = 0;
  const source = file.stream().getReader();
  let stage: "head" | "file" | "tail" | "done" = "head";
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (stage === "head") {
        stage = "file";
        controller.enqueue(head);
        onProgress?.({ loaded, total });
        return;
      }
      if (stage === "file") {
        const { value, done } = await source.read();
        if (done) {
          stage = "tail";
        } else {
          loaded += value.byteLength;
          collectChunks(value.byteLength);
          onProgress?.({ loaded, total });
          controller.enqueue(value);
          return;
        }
      }
      if (stage === "tail") {
        stage = "done";
        controller.enqueue(tail);
        controller.close();
        onSent?.();
      }
    },
    cancel(reason) {
      return source.cancel(reason);
    },
  });
  let res: Response;
  try {
    res = await doFetch(url, {
      method: "POST",
      headers: {
        ...headers,
        "Content-Type": `multipart/form-data; boundary=${boundary}`,
        "Content-Length": String(head.byteLength + total + tail.byteLength),
      },
      body,
      signal,
      // @ts-ignore: required by Node's fetch for streamed bodies, ignored elsewhere
      duplex: "half",
    });
  } catch (err) {
    if (signal?.aborted) throw new ApiError("FETCH_ERROR", `The upload to ${url} was aborted.`, url);
    throw new ApiError("FETCH_ERROR", `Could not reach ${url}: ${reason(err)}`, url);
  }
  return { status: res.status, statusText: res.statusText, text: await res.text() };
}
