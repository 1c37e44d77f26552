import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import type { DeviceTypePatch } from "../../../../shared/schemas/mod.ts";
import { isManagedDeviceType } from "../../../../shared/schemas/device_type.ts";
import type { Firmware } from "../../../../shared/schemas/firmware.ts";
import { KEY_ID_FIELD, SIGNATURE_FIELD } from "../../../../shared/schemas/release_key.ts";
import type { UploadArgs } from "../../components/UploadDialog.tsx";
import { api } from "../../lib/api.ts";
import { pastedSignature, type SignatureChoice } from "./signatureFile.ts";

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
    // A signature goes as the form fields `signature` and `keyId`, before the file; without one, the file alone.
    mutationFn: ({ file, onProgress, opts, signature }: UploadArgs & { signature?: SignatureChoice }) => {
      const sig = pastedSignature(signature?.signature ?? "");
      const fields: Record<string, string> = {};
      if (sig) fields[SIGNATURE_FIELD] = sig;
      if (sig && signature?.keyId) fields[KEY_ID_FIELD] = signature.keyId;
      return api.uploadFirmware(file, onProgress, { ...opts, fields });
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

export function useApproveFirmware() {
  const qc = useQueryClient();
  return useMutation({
    // A wrong password (401 invalid_password) is the approval's refusal, shown in its dialog; any other 401 is the
    // session's end: the call waits for the sign-in dialog and is sent again (lib/api.ts).
    mutationFn: ({ id, password }: { id: string; password: string }) => api.approveFirmware(id, password),
    onSettled: () => qc.invalidateQueries({ queryKey: firmwareKeys.all }),
  });
}
