/** Quiet answers shared by the devices of one configuration, on SQLite (one server): shared_answers_case.ts. */
import { startServer } from "../../testing/server.ts";
import { sharedAnswersCase } from "./shared_answers_case.ts";

Deno.test("shared quiet answers: devices of one configuration, one changed alone gets its own (pin, module, treatment, rollout membership, DDI action)", async (t) => {
  await using srv = await startServer({ env: { DEVICE_AUTH: "token", DEVICE_ADMISSION: "auto", LOG_LEVEL: "quiet" } });
  await sharedAnswersCase(t, await srv.login(), srv.url);
});
