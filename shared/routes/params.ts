import * as z from "zod";
import { Id } from "../schemas/common.ts";
import { DeviceId } from "../schemas/device.ts";

/** `:id` of a server-made entity. */
export const IdParams = z.object({ id: Id });

/** `:deviceId`, chosen by the device itself. */
export const DeviceIdParams = z.object({ deviceId: DeviceId });
