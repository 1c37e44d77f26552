import type { FirmwareSignature } from "../../../../shared/schemas/firmware.ts";
import { ALGORITHM_LABEL } from "../release_keys/api.ts";

/** How a firmware's signature is named: the release key that verified it and its algorithm, or that there is none. */
export const signatureText = (s: FirmwareSignature | null) =>
  s ? `Signed with ${s.keyName} (${ALGORITHM_LABEL[s.algorithm]})` : "Unsigned";
