/**
 * The store conformance suite: every store method and rule, written against the interfaces only, so each engine
 * runs the same cases (see sqlite.test.ts). Registers Deno tests; call it from an engine's test file.
 */
import { admissionCases } from "./cases/admission.ts";
import { auditCases } from "./cases/audit.ts";
import { apiTokenCases } from "./cases/api_tokens.ts";
import { changeCounterCases } from "./cases/change_counter.ts";
import { concurrencyCases } from "./cases/concurrency.ts";
import { demoCases } from "./cases/demo.ts";
import { deviceApiCases } from "./cases/device_api.ts";
import { ddiCases } from "./cases/ddi.ts";
import { deviceTypeCases } from "./cases/device_types.ts";
import { deviceCases } from "./cases/devices.ts";
import { deviceViewCases } from "./cases/device_views.ts";
import { firmwareCases } from "./cases/firmwares.ts";
import { lastSeenHourCases } from "./cases/last_seen_hours.ts";
import { loginAttemptCases } from "./cases/login_attempts.ts";
import { operatorCases } from "./cases/operators.ts";
import { productTypeCases } from "./cases/product_types.ts";
import { boundedCountCases } from "./cases/bounded_counts.ts";
import { revisionCases } from "./cases/revisions.ts";
import { rolloutCases } from "./cases/rollouts.ts";
import { rolloutTruthCases } from "./cases/rollout_truth.ts";
import { releaseKeyCases } from "./cases/release_keys.ts";
import { savedViewCases } from "./cases/saved_views.ts";
import { treatmentCases } from "./cases/treatments.ts";
import type { ConformanceOptions } from "./fixtures.ts";

export type { ConformanceOptions } from "./fixtures.ts";

export function storeConformance(engine: string, options: ConformanceOptions): void {
  for (
    const cases of [
      deviceCases,
      deviceViewCases,
      lastSeenHourCases,
      boundedCountCases,
      productTypeCases,
      deviceTypeCases,
      firmwareCases,
      treatmentCases,
      operatorCases,
      deviceApiCases,
      ddiCases,
      changeCounterCases,
      revisionCases,
      concurrencyCases,
      demoCases,
      loginAttemptCases,
      admissionCases,
      rolloutCases,
      rolloutTruthCases,
      auditCases,
      apiTokenCases,
      savedViewCases,
      releaseKeyCases,
    ]
  ) cases(engine, options);
}
