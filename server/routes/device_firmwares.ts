import * as metrics from "../metrics.ts";
import { routes } from "../../shared/routes/mod.ts";
import { firmwareContentType } from "../../shared/schemas/firmware.ts";
import type { AppContext } from "../context.ts";
import { attachmentDisposition, openFirmwareFile } from "../lib/firmware_file.ts";
import { receiveRawUpload, receiveUpload } from "../lib/upload.ts";
import { type Api, mount } from "../mount.ts";
import { firmwaresService, type Receive } from "../services/firmwares.ts";
import { clientAddress } from "../auth/client_address.ts";
import { checkPassword } from "../auth/throttle.ts";
import { busy, tooMany } from "../auth/too_many.ts";
import { ApiHttpError } from "../errors.ts";

const servedToOperators = metrics.firmwareBytesServed.labels({ to: "operators" });

export function firmwaresRoutes(api: Api, ctx: AppContext) {
  const firmwares = firmwaresService(ctx);
  mount(api, routes.listFirmwares, async (c) => c.json(await firmwares.list()));
  mount(
    api,
    routes.uploadFirmware,
    async (c) => c.json(await firmwares.upload((opts) => receiveUpload(c, opts), c.get("operator")), 201),
  );
  const { fieldHeaders } = routes.putFirmware.body;
  mount(api, routes.putFirmware, async (c, { params: { name } }) => {
    const receive: Receive = (opts) => receiveRawUpload(c, name, fieldHeaders, opts);
    return c.json(await firmwares.upload(receive, c.get("operator")), 201);
  });
  // The password re-entered is the approver's electronic signature: checked under the sign-in throttle (its own
  // count per e-mail and address), a wrong one audited and 401 invalid_password (not "unauthorized": the session
  // stays; the client does not sign out on it).
  mount(api, routes.approveFirmware, async (c, { params: { id }, body }) => {
    const operator = c.get("operator");
    const firmware = await firmwares.approvable(id, operator);
    const result = await checkPassword(
      ctx.stores.loginAttempts,
      { scope: "approve", email: operator.email, address: clientAddress(c, ctx.config.trustProxy) },
      body.password,
      () => Promise.resolve(operator.passwordHash),
    );
    if (result.kind === "busy") throw busy(c);
    if (result.kind === "wait") {
      throw tooMany(c, result.waitMs, (wait) => `Too many wrong passwords at approvals; try again in ${wait}.`);
    }
    if (result.kind === "wrong") {
      await firmwares.approvalRefused(firmware);
      throw new ApiHttpError(401, "invalid_password", "The password is incorrect; the firmware was not approved.");
    }
    return c.json(await firmwares.approve(id, operator, body.meaning));
  });
  mount(api, routes.firmwareFile, async (c, { params: { id } }) => {
    const firmware = await firmwares.get(id);
    const body = await openFirmwareFile(ctx.files, firmware);
    return c.body(metrics.countedBody(body, servedToOperators), 200, {
      "Content-Type": firmwareContentType(firmware.name),
      "Content-Length": String(firmware.size),
      "Content-Disposition": attachmentDisposition(firmware.name),
      "Cache-Control": "no-store",
    });
  });
  mount(api, routes.deleteFirmware, async (c, { params: { id } }) => {
    await firmwares.remove(id);
    return c.body(null, 204);
  });
}
