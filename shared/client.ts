/**
 * The one typed client of /api/v1, used by the web app, the CLI and the tests.
 * Every non-2xx answer becomes an ApiError here, once.
 */
import type * as z from "zod";
import { ErrorBody } from "./schemas/common.ts";
import { APPROVAL_MEANING } from "./schemas/firmware.ts";
import type { NewApiToken } from "./schemas/api_token.ts";
import type { NewSavedView, PreferencesPatch, SavedViewPatch } from "./schemas/saved_view.ts";
import type { NewOperator, OperatorPatch } from "./schemas/operator.ts";
import type {
  ChangePasswordBody,
  CheckinBody,
  DeviceBulk,
  DeviceConfig,
  DeviceCsvQuery,
  DeviceListQuery,
  DevicePatch,
  DeviceTypePatch,
  EnrollBody,
  ProductTypePatch,
  RolloutAction,
  RolloutCreate,
  RolloutDeviceFilter,
  StatusBody,
} from "./schemas/mod.ts";
import {
  type Answer,
  answerStatuses,
  fillPath,
  type Method,
  rolloutActionRoutes,
  type Route,
  routes,
} from "./routes/mod.ts";
import { collectChunks } from "./collect_chunks.ts";

/** How a call failed: unreachable, no answer in time, an answer of the wrong shape, or an HTTP status. */
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

/** True for the refusal of a conditional write made on a version someone else has changed since (412). */
export const isPreconditionFailed = (err: unknown): err is ApiError => err instanceof ApiError && err.status === 412;

/** A file to upload: a browser File/Blob, or a stream with a known size (CLI). */
export type UploadSource =
  | Blob
  | { name: string; size: number; stream: () => ReadableStream<Uint8Array> };

/** A multipart form's file field, or a raw body and the headers that carry its text fields. */
type UploadForm = string | { fieldHeaders: Readonly<Record<string, string>> };

export type Progress = { loaded: number; total: number };

/** Optional controls of an upload: abort it, and learn when every byte was sent (the server still works). */
export interface UploadOptions {
  signal?: AbortSignal;
  onSent?: () => void;
  /** Text fields sent before the file (a firmware's `signature` and `keyId`, docs/REQUIREMENTS.md §20). */
  fields?: Record<string, string>;
}

/**
 * A conditional write: `ifMatch` is the `etag` of the version the change was made on (sent as If-Match); when someone
 * else changed the entity since, the call fails with status 412 and code `precondition_failed`, and nothing changes.
 */
export interface WriteOptions {
  ifMatch?: string;
}

const conditional = ({ ifMatch }: WriteOptions) => ifMatch === undefined ? undefined : { "If-Match": ifMatch };

export interface ClientOptions {
  /** Origin of the console, e.g. "http://127.0.0.1:8000"; "" for same-origin in the browser. */
  baseUrl?: string;
  /** Returns the bearer token for each call. */
  token?: () => string | null | undefined;
  /** Called on any 401 (the web app returns to the sign-in form). */
  onUnauthorized?: () => void;
  /**
   * A call sent with token `sent` was answered 401 (the session ended: expired, revoked, role or password changed).
   * Resolves true once the operator has signed in again: the call is then sent once more with the new token; false
   * ends it with the 401. Not asked for the sign-in itself.
   */
  reauthorize?: (sent: string) => Promise<boolean>;
  /** Timeout of ordinary calls in ms (uploads have none). */
  timeoutMs?: number;
  fetch?: typeof fetch;
  /**
   * The fetch for streamed uploads (default: `fetch`). Outside the browser pass one that keeps the Content-Length of a
   * streamed body (shared/fixed_length_fetch.ts): the server refuses a chunked upload.
   */
  uploadFetch?: typeof fetch;
}

/** Query values as the client passes them; each is sent as text. */
type QueryValue = string | number | boolean | null | undefined;

/** What a call of `route` takes: its path parameters, query, JSON body or file, and extra headers. */
export type CallInput<R extends Route> =
  & (R["params"] extends z.ZodType ? { params: z.input<R["params"]> } : { params?: undefined })
  & (R["query"] extends z.ZodType ? { query?: { [K in keyof z.input<R["query"]>]?: QueryValue } }
    : { query?: undefined })
  & (R["body"] extends { kind: "json"; schema: infer S extends z.ZodType } ? { body: z.input<S> }
    : R["body"] extends { kind: "multipart" } | { kind: "raw" }
      ? { file: UploadSource; onProgress?: (p: Progress) => void; upload?: UploadOptions }
    : { body?: undefined })
  & { headers?: Record<string, string> };

type OkAnswer<R extends Route> = R["answers"][Extract<keyof R["answers"], 200 | 201 | 202 | 204 | 206>];

/** What a call of `route` resolves with: the parsed JSON answer, nothing (204), or the Response (files, HEAD). */
export type CallResult<R extends Route> = R["method"] extends "HEAD" ? Response
  : OkAnswer<R> extends { kind: "json"; schema: infer S extends z.ZodType } ? z.output<S>
  : OkAnswer<R> extends { kind: "empty" } ? void
  : Response;

/** How long an answer asked for ahead (ApiClient.prefetch) waits for its call. */
const AHEAD_MS = 10_000;

export class ApiClient {
  readonly baseUrl: string;
  #opts: ClientOptions;
  /** Answers asked for ahead, by URL: each is taken by the next identical GET call (same token, within AHEAD_MS). */
  #ahead = new Map<string, { at: number; token: string | undefined; answer: Promise<unknown> }>();
  #prefetching = false;

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
    init: { headers?: Record<string, string>; accept?: readonly number[]; reauthorize?: boolean } = {},
  ): Promise<Response> {
    const url = this.url(path);
    const doFetch = this.#opts.fetch ?? fetch;
    const timeoutMs = this.#opts.timeoutMs ?? 30_000;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    let res: Response;
    const sent = this.#opts.token?.();
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
    // A wrong password re-entered to sign (an approval) is 401 invalid_password: the session itself is fine.
    if (res.status === 401 && sent) {
      const text = await res.clone().text().catch(() => "");
      if (errorCodeOf(text) === "invalid_password") throw httpErrorFrom(401, res.statusText, text, url);
    }
    if (res.status === 401 && sent && init.reauthorize !== false && this.#opts.reauthorize) {
      const text = await res.text().catch(() => "");
      if (await this.#opts.reauthorize(sent)) return this.raw(method, path, body, { ...init, reauthorize: false });
      throw httpErrorFrom(401, res.statusText, text, url);
    }
    if (!res.ok && !init.accept?.includes(res.status)) throw await this.#httpError(res, url);
    return res;
  }

  async #httpError(res: Response, url: string): Promise<ApiError> {
    if (res.status === 401) this.#opts.onUnauthorized?.();
    const text = await res.text().catch(() => "");
    return httpErrorFrom(res.status, res.statusText, text, url);
  }

  /**
   * Sends the GET calls `start` makes on this client now, and keeps their answers for the next identical calls (each
   * taken once, with the same token, within 10 s). The console asks for its first screen's data this way while the
   * screen's code is still loading.
   */
  prefetch(start: (client: this) => void): void {
    const now = Date.now();
    for (const [url, a] of this.#ahead) if (now - a.at > AHEAD_MS) this.#ahead.delete(url);
    this.#prefetching = true;
    try {
      start(this);
    } finally {
      this.#prefetching = false;
    }
  }

  /**
   * Calls one route of the table (shared/routes): the path is filled from `params`, the query serialized, the
   * body sent as JSON or as the multipart file, and the answer parsed with the route's schema for its status.
   */
  call<R extends Route>(route: R, input: CallInput<R>): Promise<CallResult<R>> {
    if (route.method !== "GET" || route.body.kind !== "none") return this.#call(route, input);
    const { params, query } = input as { params?: Record<string, string>; query?: Record<string, QueryValue> };
    const url = this.url(routePath(route, params, query));
    const token = this.#opts.token?.() ?? undefined;
    if (this.#prefetching) {
      const answer = this.#call(route, input);
      answer.catch(() => {}); // its call sees the failure
      this.#ahead.set(url, { at: Date.now(), token, answer });
      return answer;
    }
    const ahead = this.#ahead.get(url);
    if (!ahead || (input as { headers?: unknown }).headers) return this.#call(route, input);
    this.#ahead.delete(url);
    return ahead.token === token && Date.now() - ahead.at <= AHEAD_MS
      ? ahead.answer as Promise<CallResult<R>>
      : this.#call(route, input);
  }

  async #call<R extends Route>(route: R, input: CallInput<R>): Promise<CallResult<R>> {
    const { params, query, headers } = input as {
      params?: Record<string, string>;
      query?: Record<string, QueryValue>;
      headers?: Record<string, string>;
    };
    const path = routePath(route, params, query);
    const answer = (status: number) => route.answers[status] ?? okAnswers(route)[0];
    if (route.body.kind === "multipart" || route.body.kind === "raw") {
      const { file, onProgress, upload } = input as {
        file: UploadSource;
        onProgress?: (p: Progress) => void;
        upload?: UploadOptions;
      };
      const form = route.body.kind === "raw" ? { fieldHeaders: route.body.fieldHeaders } : route.body.field;
      return await this.#upload(answer, path, form, file, onProgress, upload) as CallResult<R>;
    }
    const body = route.body.kind === "json" ? (input as { body: unknown }).body : undefined;
    const res = await this.raw(route.method, path, body, {
      headers,
      accept: answerStatuses(route),
      // A public call (the sign-in itself) answers 401 for what it was sent, not for an ended session.
      reauthorize: (route as Route).auth !== "public",
    });
    if (route.method === "HEAD" || okAnswers(route).some((a) => a.kind === "binary")) return res as CallResult<R>;
    const ok = answer(res.status);
    if (ok.kind !== "json") {
      await res.body?.cancel();
      return undefined as CallResult<R>;
    }
    return parseBody(ok.schema, await res.text(), res.url || this.url(path)) as CallResult<R>;
  }

  // Operators
  login(email: string, password: string) {
    return this.call(routes.login, { body: { email, password } });
  }
  changePassword(body: ChangePasswordBody) {
    return this.call(routes.changePassword, { body });
  }
  /** The signed-in operator's e-mail and role. */
  me() {
    return this.call(routes.me, {});
  }
  listOperators() {
    return this.call(routes.listOperators, {});
  }
  createOperator(body: NewOperator) {
    return this.call(routes.createOperator, { body });
  }
  patchOperator(id: string, body: OperatorPatch) {
    return this.call(routes.patchOperator, { params: { id }, body });
  }
  resetOperatorPassword(id: string, password: string) {
    return this.call(routes.resetOperatorPassword, { params: { id }, body: { password } });
  }

  // Audit trail
  /** One page of the audit trail, newest first; empty filters are left out. */
  listAudit(query: AuditQuery = {}) {
    return this.call(routes.listAudit, { query: auditQuery(query) });
  }
  /** The audit trail as CSV (same filters), streamed: the Response, its body not read yet. */
  auditCsv(query: AuditFilters = {}): Promise<Response> {
    return this.call(routes.auditCsv, { query: auditQuery(query) });
  }

  // Devices
  /** One page of a fleet view (docs/REQUIREMENTS.md §16): paging, sort and filters; empty values are left out. */
  listDevices(query: { [K in keyof DeviceListQuery]?: string | number } = {}) {
    return this.call(routes.listDevices, { query: withoutEmpty(query) });
  }
  /** Every device of a view as CSV: the streamed answer (read its body). */
  devicesCsv(query: { [K in keyof DeviceCsvQuery]?: string } = {}) {
    return this.call(routes.devicesCsv, { query: withoutEmpty(query) });
  }
  bulkDevices(body: DeviceBulk) {
    return this.call(routes.bulkDevices, { body });
  }
  overview() {
    return this.call(routes.overview, {});
  }
  // Device identity and admission (docs/REQUIREMENTS.md §11)
  preauthorizeDevice(deviceId: string) {
    return this.call(routes.preauthorizeDevice, { body: { deviceId } });
  }
  preauthorizeDevices(deviceIds: string[]) {
    return this.call(routes.preauthorizeDevices, { body: { deviceIds } });
  }
  acceptDevice(deviceId: string) {
    return this.call(routes.acceptDevice, { params: { deviceId } });
  }
  rejectDevice(deviceId: string) {
    return this.call(routes.rejectDevice, { params: { deviceId } });
  }
  resetDeviceCredentials(deviceId: string) {
    return this.call(routes.resetDeviceCredentials, { params: { deviceId } });
  }
  deviceAdmission() {
    return this.call(routes.deviceAdmission, {});
  }
  getDevice(deviceId: string) {
    return this.call(routes.getDevice, { params: { deviceId } });
  }
  /** The firmware in effect for a device and why (custom, a rollout's stage, the default). */
  firmwareInEffect(deviceId: string) {
    return this.call(routes.firmwareInEffect, { params: { deviceId } });
  }
  patchDevice(patch: DevicePatch, opts: WriteOptions = {}) {
    return this.call(routes.patchDevice, {
      params: { deviceId: patch.deviceId },
      body: patch,
      headers: conditional(opts),
    });
  }
  deleteDevice(deviceId: string, opts: WriteOptions = {}) {
    return this.call(routes.deleteDevice, { params: { deviceId }, headers: conditional(opts) });
  }

  // Device types
  listDeviceTypes() {
    return this.call(routes.listDeviceTypes, {});
  }
  getDeviceType(id: string) {
    return this.call(routes.getDeviceType, { params: { id } });
  }
  /** How many devices a default firmware of this device type reaches (docs/REQUIREMENTS.md §13's set-default confirm). */
  deviceTypeReach(id: string) {
    return this.call(routes.deviceTypeReach, { params: { id } });
  }
  patchDeviceType(body: DeviceTypePatch, opts: WriteOptions = {}) {
    return this.call(routes.patchDeviceType, { params: { id: body._id }, body, headers: conditional(opts) });
  }

  // Firmwares
  listFirmwares() {
    return this.call(routes.listFirmwares, {});
  }
  uploadFirmware(file: UploadSource, onProgress?: (p: Progress) => void, opts?: UploadOptions) {
    return this.call(routes.uploadFirmware, { file, onProgress, upload: opts });
  }
  /** The same upload as the raw body (PUT, no multipart framing: less server CPU per byte); for streams, not forms. */
  putFirmware(file: UploadSource, onProgress?: (p: Progress) => void, opts?: UploadOptions) {
    return this.call(routes.putFirmware, { params: { name: fileName(file) }, file, onProgress, upload: opts });
  }
  deleteFirmware(id: string) {
    return this.call(routes.deleteFirmware, { params: { id } });
  }
  /** Two-person release (docs/REQUIREMENTS.md §20): approve with one's password; a wrong one is 401 invalid_password. */
  approveFirmware(id: string, password: string) {
    return this.call(routes.approveFirmware, { params: { id }, body: { password, meaning: APPROVAL_MEANING } });
  }
  // Release keys
  listReleaseKeys() {
    return this.call(routes.listReleaseKeys, {});
  }
  getReleaseKey(id: string) {
    return this.call(routes.getReleaseKey, { params: { id } });
  }
  createReleaseKey(name: string, publicKey: string) {
    return this.call(routes.createReleaseKey, { body: { name, publicKey } });
  }
  revokeReleaseKey(id: string) {
    return this.call(routes.revokeReleaseKey, { params: { id } });
  }
  firmwareFile(id: string) {
    return this.call(routes.firmwareFile, { params: { id } });
  }

  // Treatments
  listTreatments() {
    return this.call(routes.listTreatments, {});
  }
  /** Every treatment without its phases: for lists, counts and pickers. */
  listTreatmentSummaries() {
    return this.call(routes.listTreatmentSummaries, {});
  }
  getTreatment(id: string) {
    return this.call(routes.getTreatment, { params: { id } });
  }
  importTreatments(file: UploadSource, onProgress?: (p: Progress) => void, opts?: UploadOptions) {
    return this.call(routes.importTreatments, { file, onProgress, upload: opts });
  }
  async treatmentImage(id: string): Promise<Blob> {
    const res = await this.call(routes.treatmentImage, { params: { id } });
    return res.blob();
  }

  // Product types
  listProductTypes() {
    return this.call(routes.listProductTypes, {});
  }
  createProductType(name: string) {
    return this.call(routes.createProductType, { body: { name } });
  }
  getProductType(id: string) {
    return this.call(routes.getProductType, { params: { id } });
  }
  patchProductType(body: ProductTypePatch, opts: WriteOptions = {}) {
    return this.call(routes.patchProductType, { params: { id: body._id }, body, headers: conditional(opts) });
  }
  deleteProductType(id: string, opts: WriteOptions = {}) {
    return this.call(routes.deleteProductType, { params: { id }, headers: conditional(opts) });
  }

  listRollouts() {
    return this.call(routes.listRollouts, {});
  }
  getRollout(id: string) {
    return this.call(routes.getRollout, { params: { id } });
  }
  createRollout(body: RolloutCreate) {
    return this.call(routes.createRollout, { body });
  }
  rolloutDevices(id: string, query: { state?: RolloutDeviceFilter; page?: number; rowsPerPage?: number } = {}) {
    return this.call(routes.rolloutDevices, { params: { id }, query });
  }
  rolloutHistory(id: string) {
    return this.call(routes.rolloutHistory, { params: { id } });
  }
  rolloutTargets(productTypeId: string | null) {
    return this.call(routes.rolloutTargets, { query: productTypeId === null ? {} : { productTypeId } });
  }
  rolloutStages(id: string) {
    return this.call(routes.rolloutStages, { params: { id } });
  }
  /** start, pause, resume, advance, cancel, promote or retry: the rollout as it now is. */
  rolloutAction(id: string, action: RolloutAction) {
    return this.call(rolloutActionRoutes[action], { params: { id } });
  }
  // API tokens
  listApiTokens() {
    return this.call(routes.listApiTokens, {});
  }
  /** The answer holds the secret (`token`), shown this once. */
  createApiToken(body: NewApiToken) {
    return this.call(routes.createApiToken, { body });
  }
  revokeApiToken(id: string) {
    return this.call(routes.revokeApiToken, { params: { id } });
  }

  // Saved views and preferences, per operator (docs/DECISIONS.md, "Saved views")
  /** One's own saved views and those others shared. */
  listSavedViews() {
    return this.call(routes.listSavedViews, {});
  }
  createSavedView(body: NewSavedView) {
    return this.call(routes.createSavedView, { body });
  }
  patchSavedView(id: string, body: SavedViewPatch) {
    return this.call(routes.patchSavedView, { params: { id }, body });
  }
  deleteSavedView(id: string) {
    return this.call(routes.deleteSavedView, { params: { id } });
  }
  getPreferences() {
    return this.call(routes.getPreferences, {});
  }
  patchPreferences(body: PreferencesPatch) {
    return this.call(routes.patchPreferences, { body });
  }

  /** Multipart upload of one field `file` to a path under /api/v1, with progress; streams, never buffers the file. */
  upload<T>(
    schema: z.ZodType<T>,
    path: string,
    file: UploadSource,
    onProgress?: (p: Progress) => void,
    opts: UploadOptions = {},
  ): Promise<T> {
    return this.#upload(() => ({ kind: "json", schema }), path, "file", file, onProgress, opts) as Promise<T>;
  }

  async #upload(
    answer: (status: number) => Answer,
    path: string,
    field: UploadForm,
    file: UploadSource,
    onProgress?: (p: Progress) => void,
    opts: UploadOptions = {},
    again = false,
  ): Promise<unknown> {
    const url = this.url(path);
    const sent = this.#opts.token?.();
    const { status, statusText, text } =
      typeof XMLHttpRequest !== "undefined" && file instanceof Blob && !this.#opts.fetch && typeof field === "string"
        ? await xhrUpload(url, this.#headers(), field, file, onProgress, opts)
        : await streamUpload(
          this.#opts.uploadFetch ?? this.#opts.fetch ?? fetch,
          url,
          this.#headers(),
          field,
          file,
          onProgress,
          opts,
        );
    // A file the browser holds can be sent again once the operator has signed in again; a stream cannot.
    if (status === 401 && sent && file instanceof Blob && !again && this.#opts.reauthorize) {
      if (await this.#opts.reauthorize(sent)) return this.#upload(answer, path, field, file, onProgress, opts, true);
    }
    if (status < 200 || status > 299) {
      if (status === 401) this.#opts.onUnauthorized?.();
      throw httpErrorFrom(status, statusText, text, url);
    }
    const ok = answer(status);
    return ok.kind === "json" ? parseBody(ok.schema, text, url) : undefined;
  }
}

/** The client a device uses (the device API under /api/v1/device/), authenticated with the fleet's DEVICE_API_KEY. */
export class DeviceClient {
  #api: ApiClient;
  /**
   * `apiKey`: the fleet's DEVICE_API_KEY (DEVICE_AUTH=shared), or with DEVICE_AUTH=token the enrolment key for
   * enroll and the device's own token for the rest (a function, so it can change once the token is issued).
   */
  constructor(readonly deviceId: string, opts: Omit<ClientOptions, "token"> & { apiKey: string | (() => string) }) {
    const key = opts.apiKey;
    this.#api = new ApiClient({ ...opts, token: typeof key === "function" ? key : () => key });
  }
  /** docs/REQUIREMENTS.md §11: `{token}` (201, shown only this once) or `{status: "pending"}` (202). */
  enroll(body: EnrollBody): Promise<{ token: string } | { status: "pending" }> {
    return this.#api.call(routes.deviceEnroll, { params: { deviceId: this.deviceId }, body });
  }
  checkin(body: CheckinBody): Promise<DeviceConfig> {
    return this.#api.call(routes.deviceCheckin, { params: { deviceId: this.deviceId }, body });
  }
  config(): Promise<DeviceConfig> {
    return this.#api.call(routes.deviceConfig, { params: { deviceId: this.deviceId } });
  }
  /**
   * The firmware download (200, or 206 for a Range); pass headers such as Range or If-None-Match.
   * A 304 (the ETag still matches) is an answer, not a failure: it resolves with that empty Response.
   */
  firmware(headers: Record<string, string> = {}): Promise<Response> {
    return this.#api.call(routes.deviceFirmware, { params: { deviceId: this.deviceId }, headers });
  }
  /** An update report (docs/REQUIREMENTS.md §13): 204, or 409 when the firmware is not the one the configuration names. */
  async status(body: StatusBody): Promise<void> {
    await this.#api.call(routes.deviceStatus, { params: { deviceId: this.deviceId }, body });
  }
}

/** The filters of GET audit and GET audit.csv as the client takes them (each one narrows; empty ones are ignored). */
export interface AuditFilters {
  actor?: string;
  action?: string;
  targetType?: string;
  targetId?: string;
  from?: string;
  to?: string;
}
export interface AuditQuery extends AuditFilters {
  page?: number;
  rowsPerPage?: number;
}

function auditQuery(q: AuditQuery): Record<string, string | number | undefined> {
  const out: Record<string, string | number | undefined> = {};
  for (const [k, v] of Object.entries(q)) out[k] = v === "" || v === null ? undefined : v;
  return out;
}

/** A route's path under /api/v1 (no leading slash), its parameters encoded, with the query string. */
/** The query without undefined, null or empty-string members. */
function withoutEmpty<T extends Record<string, unknown>>(query: T): { [K in keyof T]?: QueryValue } {
  const out: Record<string, QueryValue> = {};
  for (const [k, v] of Object.entries(query)) {
    if (v !== undefined && v !== null && v !== "") out[k] = v as QueryValue;
  }
  return out as { [K in keyof T]?: QueryValue };
}

function routePath(
  route: Route,
  params: Record<string, string> | undefined,
  query: Record<string, QueryValue> | undefined,
): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null) search.set(key, String(value));
  }
  const qs = search.toString();
  return `${fillPath(route.path, params).slice(1)}${qs ? `?${qs}` : ""}`;
}

/** The answers of a route that are not failures, in status order. */
function okAnswers(route: Route): Answer[] {
  return answerStatuses(route).map((s) => route.answers[s]);
}

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

function errorCodeOf(text: string): string | undefined {
  try {
    return ErrorBody.safeParse(JSON.parse(text)).data?.error;
  } catch {
    return undefined;
  }
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
  field: string,
  file: Blob,
  onProgress?: (p: Progress) => void,
  { signal, onSent, fields }: UploadOptions = {},
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
    for (const [name, value] of Object.entries(fields ?? {})) form.append(name, value);
    form.append(field, file, fileName(file));
    xhr.send(form);
  });
}

async function streamUpload(
  doFetch: typeof fetch,
  url: string,
  headers: Record<string, string>,
  field: UploadForm,
  file: UploadSource,
  onProgress?: (p: Progress) => void,
  { signal, onSent, fields }: UploadOptions = {},
): Promise<{ status: number; statusText: string; text: string }> {
  const boundary = `----console${crypto.randomUUID().replaceAll("-", "")}`;
  const safeName = fileName(file).replace(/[\r\n"]/g, (ch) => encodeURIComponent(ch));
  const te = new TextEncoder();
  const raw = typeof field === "string" ? null : field.fieldHeaders;
  const textParts = Object.entries(fields ?? {}).map(([name, value]) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name.replace(/[\r\n"]/g, "")}"\r\n\r\n${value}\r\n`
  ).join("");
  // The raw body is the file alone; its fields travel as the headers the route names.
  const head = raw ? new Uint8Array() : te.encode(
    textParts +
      `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${safeName}"\r\n` +
      `Content-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = raw ? new Uint8Array() : te.encode(`\r\n--${boundary}--\r\n`);
  const fieldHeaders: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw ? fields ?? {} : {})) {
    if (!raw![name]) {
      throw new ApiError("FETCH_ERROR", `The upload to ${url} has no header for the field ${name}.`, url);
    }
    fieldHeaders[raw![name]] = value;
  }
  const total = file.size;
  let loaded = 0;
  const source = file.stream().getReader();
  let stage: "head" | "file" | "tail" | "done" = "head";
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (stage === "head") {
        stage = "file";
        onProgress?.({ loaded, total });
        // A pull that enqueues nothing is not called again: a raw body (no head) goes on to the file at once.
        if (head.byteLength) return controller.enqueue(head);
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
        if (tail.byteLength) controller.enqueue(tail);
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
      method: raw ? "PUT" : "POST",
      headers: {
        ...headers,
        ...fieldHeaders,
        "Content-Type": raw ? "application/octet-stream" : `multipart/form-data; boundary=${boundary}`,
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
