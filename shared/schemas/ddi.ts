/**
 * hawkBit's Direct Device Integration (DDI) as the console speaks it (docs/REQUIREMENTS.md §18): what SWUpdate's
 * suricatta and rauc-hawkbit-updater read and send. Bodies from devices are loose (unknown members are ignored, as
 * hawkBit ignores them); answers hold what the agents need.
 */
import * as z from "zod";

/** An action id: a decimal integer in [1, 2^31-1]. */
export const DDI_ACTION_ID_MAX = 2 ** 31 - 1;
export const DdiActionId = z.string().regex(/^[1-9][0-9]{0,9}$/, "must be a decimal action id").transform(Number)
  .pipe(z.number().max(DDI_ACTION_ID_MAX, "must be a decimal action id"));

export const DDI_ATTRIBUTES_MAX = 100;
export const DDI_ATTRIBUTE_NAME_MAX = 128;
export const DDI_ATTRIBUTE_VALUE_MAX = 1024;
/** Feedback details are joined with this and cut to DDI_DETAILS_MAX characters. */
export const DDI_DETAILS_MAX = 1000;

const Href = z.object({ href: z.string() });

/** GET /{tenant}/controller/v1/{controllerId}: when to poll again, and what the device should fetch. */
export const DdiPoll = z.object({
  config: z.object({ polling: z.object({ sleep: z.string().regex(/^\d{2,}:\d{2}:\d{2}$/) }) }),
  _links: z.object({
    deploymentBase: Href.optional(),
    cancelAction: Href.optional(),
    configData: Href.optional(),
  }),
});
export type DdiPoll = z.infer<typeof DdiPoll>;

export const DdiArtifact = z.object({
  filename: z.string(),
  size: z.number().int(),
  hashes: z.object({ sha1: z.string(), md5: z.string(), sha256: z.string() }),
  _links: z.object({ download: Href, "download-http": Href }),
});

/** GET .../deploymentBase/{actionId}: exactly one chunk with one artifact. */
export const DdiDeployment = z.object({
  id: z.string(),
  deployment: z.object({
    download: z.literal("forced"),
    update: z.literal("forced"),
    chunks: z.array(z.object({
      part: z.literal("os"),
      version: z.string(),
      name: z.string(),
      artifacts: z.array(DdiArtifact).length(1),
      /**
       * hawkBit's chunk metadata: for signed firmware (docs/REQUIREMENTS.md §20) `signature.keyId`, `signature.keyName`,
       * `signature.algorithm` and `signature.value` (base64, over the artifact's SHA-256 digest); absent when unsigned.
       */
      metadata: z.array(z.object({ key: z.string(), value: z.string() })).optional(),
    })).length(1),
  }),
});
export type DdiDeployment = z.infer<typeof DdiDeployment>;

/** GET .../cancelAction/{actionId}. */
export const DdiCancel = z.object({ id: z.string(), cancelAction: z.object({ stopId: z.string() }) });
export type DdiCancel = z.infer<typeof DdiCancel>;

/** POST .../feedback: hawkBit's status; `details` of any length (joined, cut to DDI_DETAILS_MAX). */
export const DdiFeedback = z.looseObject({
  status: z.looseObject({
    execution: z.string().max(64),
    result: z.looseObject({
      finished: z.string().max(64).optional(),
      progress: z.looseObject({ cnt: z.number().optional(), of: z.number().optional() }).optional(),
    }).optional(),
    details: z.array(z.string()).optional(),
  }),
});
export type DdiFeedback = z.infer<typeof DdiFeedback>;

/** A device's attributes (Device.attributes): at most 100 names of 1-128 characters, values of at most 1024. */
export const DeviceAttributes = z.record(
  z.string().min(1, "must not be empty").max(DDI_ATTRIBUTE_NAME_MAX, "is at most 128 characters"),
  z.string().max(DDI_ATTRIBUTE_VALUE_MAX, "is at most 1024 characters"),
).refine((r) => Object.keys(r).length <= DDI_ATTRIBUTES_MAX, `has at most ${DDI_ATTRIBUTES_MAX} names`);
export type DeviceAttributes = z.infer<typeof DeviceAttributes>;

/** PUT .../configData (`mode` is ignored: the attributes are replaced). */
export const DdiConfigData = z.looseObject({ data: DeviceAttributes });
export type DdiConfigData = z.infer<typeof DdiConfigData>;
