import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { ApiError } from "../../../../shared/client.ts";
import type { DeviceTypePatch } from "../../../../shared/schemas/mod.ts";
import { isManagedDeviceType } from "../../../../shared/schemas/device_type.ts";
import { APPROVAL_MEANING, Firmware } from "../../../../shared/schemas/firmware.ts";
import type { UploadArgs } from "../../components/UploadDialog.tsx";
import { api } from "../../lib/api.ts";
import { reauthorize } from "../../lib/sessionEnd.ts";
import { getToken } from "../../lib/token.ts";
import { pastedSignature, type SignatureChoice } from "./signatureFile.ts";
import { uploadSignedFirmware } from "./signedUpload.ts";

export const firmwareKeys = {
  all: ["device_firmwares"] as const,
  list: () => [...firmwareKeys.all, "list"] as const,
};

export const deviceTypeKeys = {
  all: ["device_types"] as const,
  list: () => [...deviceTypeKeys.all, "list"] as const,
};

/**
 * A firmware as a choice of a dropdown that makes it what devices run (a pin, a bulk change, a rollout): a pending one
 * is named "awaiting approval" and cannot be chosen (the server refuses it with 409 anyway).
 */
export const firmwareOption = (f: Firmware) =>
  f.approval.state === "pending"
    ? { label: `${f.name} (awaiting approval)`, value: f._id, disabled: true }
    : { label: f.name, value: f._id, disabled: false };

export const firmwaresQuery = () => queryOptions({ queryKey: firmwareKeys.list(), queryFn: () => api.listFirmwares() });

export const deviceTypesQuery = () =>
  queryOptions({ queryKey: deviceTypeKeys.list(), queryFn: () => api.listDeviceTypes() });

/** The device type whose default firmware the console manages: `jeecee_baby_<PRODUCT>`. */
export function managedDeviceType<T extends { name: string }>(types: readonly T[] | undefined): T | undefined {
  return types?.find((t) => isManagedDeviceType(t.name));
}

export function useUploadFirmware() {
  const qc = useQueryClient();
  return useMutation({
    // With a signature the fields go before the file (signedUpload.ts); without one, the file alone as before.
    mutationFn: ({ file, onProgress, opts, signature }: UploadArgs & { signature?: SignatureChoice }) => {
      const sig = pastedSignature(signature?.signature ?? "");
      return sig && file instanceof File
        ? uploadSignedFirmware(file, { signature: sig, keyId: signature?.keyId ?? null }, onProgress, opts)
        : api.uploadFirmware(file, onProgress, opts);
    },
    onSettled: () => qc.invalidateQueries({ queryKey: firmwareKeys.all }),
  });
}

export function useDeleteFirmware() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.deleteFirmware(id),
    onSuccess: () => qc.invalidateQueries({ queryKey: firmwareKeys.all }),
  });
}

/**
 * PATCH device_types/{_id} {_id, defaultFirmware} on the version `ifMatch` (the etag of the device type shown); null
 * unsets the default. When someone else changed the device type since, the server refuses (412) and the device types
 * are loaded again either way.
 */
export function useSetDefaultFirmware() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ body, ifMatch }: { body: DeviceTypePatch; ifMatch: string }) =>
      api.patchDeviceType(body, { ifMatch }),
    onSettled: () => qc.invalidateQueries({ queryKey: deviceTypeKeys.all }),
  });
}

/**
 * How many devices a default firmware of the device type reaches at their next check-in, and how many it does not
 * (custom firmware, a rollout's stage): asked when a set-default or promote confirmation opens.
 */
export const defaultReachQuery = (deviceTypeId: string) =>
  queryOptions({
    queryKey: [...deviceTypeKeys.all, "reach", deviceTypeId] as const,
    queryFn: () => api.deviceTypeReach(deviceTypeId),
    staleTime: 0,
  });

/**
 * POST device_firmwares/{id}/approve with the approver's password and the meaning "approved for release". A wrong
 * password is a 401 `invalid_password`: the approval's own refusal, shown in its dialog, not the end of the session.
 * Any other 401 is the session's end: the call waits for the sign-in dialog and is sent again after it, like every
 * call of the console (lib/api.ts), so an approval confirmed as the session ended is not lost.
 */
export async function approveFirmware(id: string, password: string, again = false): Promise<Firmware> {
  const sent = getToken();
  try {
    const res = await api.raw(
      "POST",
      `device_firmwares/${encodeURIComponent(id)}/approve`,
      { password, meaning: APPROVAL_MEANING },
      { reauthorize: false },
    );
    return Firmware.parse(await res.json());
  } catch (err) {
    const sessionEnded = err instanceof ApiError && err.status === 401 && err.code !== "invalid_password";
    if (sessionEnded && sent && !again && await reauthorize(sent)) return approveFirmware(id, password, true);
    throw err;
  }
}

export function useApproveFirmware() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, password }: { id: string; password: string }) => approveFirmware(id, password),
    onSettled: () => qc.invalidateQueries({ queryKey: firmwareKeys.all }),
  });
}
