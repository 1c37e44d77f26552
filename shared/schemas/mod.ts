export * from "./common.ts";
export * from "./auth.ts";
export * from "./device.ts";
export * from "./device_type.ts";
export * from "./firmware.ts";
export * from "./treatment.ts";
export * from "./product_type.ts";
export * from "./device_api.ts";
