import { ApiError, type Progress, type UploadOptions } from "../../../../shared/client.ts";
import { ErrorBody } from "../../../../shared/schemas/common.ts";
import { UploadedFirmware } from "../../../../shared/schemas/firmware.ts";
import { KEY_ID_FIELD, SIGNATURE_FIELD } from "../../../../shared/schemas/release_key.ts";
import { reauthorize } from "../../lib/sessionEnd.ts";
import { getToken } from "../../lib/token.ts";
import type { SignatureChoice } from "./signatureFile.ts";

/**
 * POST device_firmwares with a detached signature: the form fields `signature` and `keyId` go BEFORE the file, so the
 * server has them when the file's bytes (and its streamed digest) end. Like the API client's uploads: progress, abort,
 * "all bytes sent", and a 401 of an ended session waits for the sign-in dialog and sends the file once more.
 * (The shared client sends the file alone; see docs/DECISIONS.md, "Release integrity in the console".)
 */
export async function uploadSignedFirmware(
  file: File,
  sig: SignatureChoice,
  onProgress?: (p: Progress) => void,
  opts: UploadOptions = {},
  again = false,
): Promise<UploadedFirmware> {
  const url = "/api/v1/device_firmwares";
  const sent = getToken();
  const { status, text } = await send(url, sent, file, sig, onProgress, opts);
  if (status === 401 && sent && !again && await reauthorize(sent)) {
    return uploadSignedFirmware(file, sig, onProgress, opts, true);
  }
  if (status < 200 || status > 299) {
    let body: ErrorBody | undefined;
    try {
      body = ErrorBody.parse(JSON.parse(text));
    } catch { /* not the API's error shape */ }
    throw new ApiError("HTTP_ERROR", body?.msg ?? `HTTP ${status}`, url, status, body?.error);
  }
  const parsed = UploadedFirmware.safeParse(JSON.parse(text));
  if (!parsed.success) throw new ApiError("PARSING_ERROR", `The answer from ${url} has an unexpected shape.`, url);
  return parsed.data;
}

function send(
  url: string,
  token: string | null,
  file: File,
  sig: SignatureChoice,
  onProgress?: (p: Progress) => void,
  { signal, onSent }: UploadOptions = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const aborted = () => new ApiError("FETCH_ERROR", `The upload to ${url} was aborted.`, url);
    if (signal?.aborted) return reject(aborted());
    const xhr = new XMLHttpRequest();
    const abort = () => xhr.abort();
    signal?.addEventListener("abort", abort, { once: true });
    const settle = () => signal?.removeEventListener("abort", abort);
    xhr.open("POST", url);
    if (token) xhr.setRequestHeader("Authorization", `Bearer ${token}`);
    xhr.upload.onprogress = (e) => onProgress?.({ loaded: e.loaded, total: e.lengthComputable ? e.total : file.size });
    xhr.upload.onload = () => onSent?.();
    xhr.onload = () => {
      settle();
      resolve({ status: xhr.status, text: xhr.responseText });
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
    form.append(SIGNATURE_FIELD, sig.signature);
    if (sig.keyId) form.append(KEY_ID_FIELD, sig.keyId);
    form.append("file", file, file.name);
    xhr.send(form);
  });
}
