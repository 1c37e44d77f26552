/** Finding entities the way people name them: firmware by id or name, the managed device type. */
import type { ApiClient } from "../../shared/client.ts";
import type { DeviceType, Firmware } from "../../shared/schemas/mod.ts";
import type { SavedView } from "../../shared/schemas/saved_view.ts";
import type { ReleaseKey } from "../../shared/schemas/release_key.ts";
import { isManagedDeviceType, MANAGED_DEVICE_TYPE_PREFIX } from "../../shared/schemas/device_type.ts";
import { RefusedError } from "./errors.ts";

/** An exact `_id` wins; else an exact name; none or several is a refusal. */
export async function findFirmware(api: ApiClient, idOrName: string): Promise<Firmware> {
  const firmwares = await api.listFirmwares();
  const byId = firmwares.find((f) => f._id === idOrName);
  if (byId) return byId;
  const byName = firmwares.filter((f) => f.name === idOrName);
  if (byName.length === 1) return byName[0];
  if (byName.length > 1) {
    throw new RefusedError(
      `Several firmwares are named '${idOrName}' (${byName.map((f) => f._id).join(", ")}): give the id.`,
    );
  }
  throw new RefusedError(`No firmware with id or name '${idOrName}' (see firmware list).`);
}

/**
 * The device type whose default firmware is managed: the one named jeecee_baby_<PRODUCT>. Its `etag` goes with the
 * PATCH that changes it (If-Match), so a change someone made in between is refused (412, exit 1), not overwritten.
 * When the server holds several (PRODUCT was changed), CONSOLE_DEVICE_TYPE names the one to use.
 */
export async function managedDeviceType(api: ApiClient): Promise<DeviceType> {
  const types = await api.listDeviceTypes();
  const wanted = Deno.env.get("CONSOLE_DEVICE_TYPE");
  if (wanted) {
    const found = types.find((t) => t.name === wanted);
    if (!found) throw new RefusedError(`No device type named '${wanted}' (CONSOLE_DEVICE_TYPE).`);
    return found;
  }
  const managed = types.filter((t) => isManagedDeviceType(t.name));
  if (managed.length === 1) return managed[0];
  if (managed.length === 0) {
    throw new RefusedError(`The server has no ${MANAGED_DEVICE_TYPE_PREFIX}<PRODUCT> device type.`);
  }
  throw new RefusedError(
    `The server has several managed device types (${managed.map((t) => t.name).join(", ")}): ` +
      `set CONSOLE_DEVICE_TYPE to the one to use.`,
  );
}

/**
 * A saved view (one's own or a shared one) by id, or by name ignoring case: one's own view of that name wins over
 * views others shared; several shared views of that name and none of one's own is a refusal naming their owners.
 */
export async function findView(api: ApiClient, idOrName: string): Promise<SavedView> {
  const views = await api.listSavedViews();
  const byId = views.find((v) => v._id === idOrName);
  if (byId) return byId;
  const key = idOrName.trim().normalize("NFC").toLowerCase();
  const byName = views.filter((v) => v.name.normalize("NFC").toLowerCase() === key);
  if (byName.length === 1) return byName[0];
  if (byName.length > 1) {
    const { email } = await api.me();
    const mine = byName.find((v) => v.owner === email);
    if (mine) return mine;
    throw new RefusedError(
      `Several shared views are named '${idOrName}' (${
        byName.map((v) => `${v._id} of ${v.owner}`).join(", ")
      }): give the id.`,
    );
  }
  throw new RefusedError(`No saved view with id or name '${idOrName}' (see views list).`);
}

/** A release key by id or name (names ignore case, as the server keeps them unique). */
export async function findReleaseKey(api: ApiClient, idOrName: string): Promise<ReleaseKey> {
  const keys = await api.listReleaseKeys();
  const key = keys.find((k) => k._id === idOrName) ??
    keys.find((k) => k.name.trim().toLowerCase() === idOrName.trim().toLowerCase());
  if (!key) throw new RefusedError(`No release key with id or name '${idOrName}' (an admin registers keys).`);
  return key;
}
