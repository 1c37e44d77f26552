import { Hono } from "hono";
import { type Device, DeviceId, DeviceListQuery, DevicePatch } from "../../shared/schemas/device.ts";
import type { AppContext, AppEnv } from "../context.ts";
import {
  deleteDevice,
  type DeviceChanges,
  firstForeignModule,
  firstMissingId,
  getDevice,
  listDevices,
  updateDevice,
} from "../db/devices.ts";
import type { Db } from "../db/mod.ts";
import { badRequest, notFound } from "../errors.ts";
import { ReadCache } from "../lib/read_cache.ts";
import { jsonBody, parse, query } from "../validate.ts";

const deviceIdParam = (value: string) => parse(DeviceId, value, "deviceId");

function existingDevice(db: Db, deviceId: string): Device {
  const device = getDevice(db, deviceId);
  if (!device) throw notFound(`No device with deviceId ${deviceId}.`);
  return device;
}

/** Checks every referenced id of a patch against the database; returns the changes to write. */
function checkPatch(db: Db, device: Device, patch: DevicePatch): DeviceChanges {
  const changes: DeviceChanges = {};
  if (patch.productTypeId !== undefined) {
    if (patch.productTypeId !== null && firstMissingId(db, "product_types", [patch.productTypeId])) {
      throw badRequest(`productTypeId: no product type with id ${patch.productTypeId}.`);
    }
    changes.productTypeId = patch.productTypeId;
  }
  if (patch.firmware !== undefined) {
    if (patch.firmware !== null && firstMissingId(db, "firmwares", [patch.firmware])) {
      throw badRequest(`firmware: no firmware with id ${patch.firmware}.`);
    }
    changes.firmware = patch.firmware;
  }
  if (patch.additionalTreatmentIds !== undefined) {
    const missing = firstMissingId(db, "treatments", patch.additionalTreatmentIds);
    if (missing !== null) throw badRequest(`additionalTreatmentIds: no treatment with id ${missing}.`);
    changes.additionalTreatmentIds = patch.additionalTreatmentIds;
  }
  const productTypeId = patch.productTypeId !== undefined ? patch.productTypeId : device.productTypeId;
  if (patch.moduleIds !== undefined) {
    const missing = firstMissingId(db, "modules", patch.moduleIds);
    if (missing !== null) throw badRequest(`moduleIds: no module with id ${missing}.`);
    const foreign = firstForeignModule(db, productTypeId, patch.moduleIds);
    if (foreign !== null) {
      throw badRequest(
        productTypeId === null
          ? `moduleIds: the device has no product type, so it cannot enable module ${foreign}.`
          : `moduleIds: module ${foreign} is not a module of product type ${productTypeId}.`,
      );
    }
    changes.moduleIds = patch.moduleIds;
  } else if (productTypeId !== device.productTypeId) {
    // The old type's modules cannot belong to the new type: a type change without moduleIds clears them.
    changes.moduleIds = [];
  }
  return changes;
}

/** CONTRACT §5: operator routes for devices (devices are created by the device API check-in). */
export function devicesRoutes(ctx: AppContext) {
  const pages = new ReadCache(ctx.db);
  return new Hono<AppEnv>()
    .get("/", (c) => {
      const { page, rowsPerPage, q } = query(c, DeviceListQuery);
      const json = pages.get(`${page}|${rowsPerPage}|${q?.trim() ?? ""}`, () => {
        const { data, total } = listDevices(ctx.db, page, rowsPerPage, q?.trim());
        return { data, total, page, per_page: rowsPerPage };
      });
      return c.body(json, 200, { "Content-Type": "application/json" });
    })
    .get("/:deviceId", (c) => {
      const deviceId = deviceIdParam(c.req.param("deviceId"));
      return c.json(existingDevice(ctx.db, deviceId));
    })
    .patch("/:deviceId", async (c) => {
      const deviceId = deviceIdParam(c.req.param("deviceId"));
      const patch = await jsonBody(c, DevicePatch);
      if (patch.deviceId !== deviceId) {
        throw badRequest(`deviceId: the body's deviceId ${patch.deviceId} differs from the path's ${deviceId}.`);
      }
      // Synchronous from here on: the checks and the write see the same database state.
      const device = existingDevice(ctx.db, deviceId);
      updateDevice(ctx.db, deviceId, checkPatch(ctx.db, device, patch));
      return c.json(existingDevice(ctx.db, deviceId));
    })
    .delete("/:deviceId", (c) => {
      const deviceId = deviceIdParam(c.req.param("deviceId"));
      if (!deleteDevice(ctx.db, deviceId)) throw notFound(`No device with deviceId ${deviceId}.`);
      return c.body(null, 204);
    });
}
