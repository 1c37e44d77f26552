/**
 * What the request id and the metrics cost each request (the work app.ts adds around every handler), measured alone
 * in this process, to set against the time of a GET devices request of the same run. The server does not validate its
 * answers at run time (the tests do: testing/answer_check.ts), so that costs a request nothing.
 */
import * as metrics from "../../server/metrics.ts";
import { requestIdFrom, withRequest } from "../../server/lib/request_context.ts";

/** Microseconds per request of the id, the ALS scope, the counter and the histogram. */
export function observabilityMicros(iterations = 200_000): number {
  const once = () =>
    withRequest(requestIdFrom(undefined), () => {
      metrics.countRequest("/api/v1/devices", "GET", 200, 0.0012);
    });
  for (let i = 0; i < 10_000; i++) once();
  const started = performance.now();
  for (let i = 0; i < iterations; i++) once();
  return (performance.now() - started) * 1000 / iterations;
}
