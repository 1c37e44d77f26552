import * as metrics from "../metrics.ts";
import { ddiRoutes as routes } from "../../shared/routes/mod.ts";
import type { DdiCancel, DdiDeployment, DdiPoll } from "../../shared/schemas/ddi.ts";
import { deviceAs } from "../auth/acting_as.ts";
import type { PolledDevice } from "../db/stores.ts";
import { runAs } from "../db/audit_context.ts";
import { signatureMetadata, sleepText } from "../db/rules/ddi.ts";
import type { AppContext } from "../context.ts";
import { notFound } from "../errors.ts";
import { firmwareDownload } from "../lib/firmware_download.ts";
import { originOf } from "../lib/request_origin.ts";
import { type Api, mount, mountHead } from "../mount.ts";
import { ddiService } from "../services/ddi.ts";

const servedToDevices = metrics.firmwareBytesServed.labels({ to: "devices" });

/** A firmware's version as DDI shows it: its name without the extension. */
const versionOf = (name: string) => name.replace(/\.[A-Za-z0-9]+$/, "");

/**
 * hawkBit DDI (docs/REQUIREMENTS.md §18), at the server root, each route behind the DDI guard (auth/ddi_auth.ts).
 * Links are absolute, from the origin the device reached and the tenant as it wrote it.
 */
export function ddiApiRoutes(api: Api, ctx: AppContext) {
  const product = ctx.config.PRODUCT;
  const trustProxy = ctx.config.trustProxy;
  const { deviceApi } = ctx.stores;
  const register = ctx.config.DEVICE_AUTH !== "token";
  const sleep = sleepText(ctx.config.DDI_POLL_SECONDS);
  const ddi = ddiService(ctx);
  const baseOf = (req: Request, tenant: string, id: string) =>
    `${originOf(req, trustProxy)}/${encodeURIComponent(tenant)}/controller/v1/${encodeURIComponent(id)}`;
  const noAction = (id: string, actionId: number) => notFound(`Device ${id} has no action ${actionId}.`);

  // Run as the device (the audit context): by runAs in the Hono route, by the lean guard's admission below Hono.
  const poll = async (
    req: Request,
    tenant: string,
    id: string,
    row: PolledDevice | null | undefined,
  ): Promise<DdiPoll> => {
    const polled = await deviceApi.ddiPoll(id, product, register, row);
    metrics.checkins.inc();
    const base = baseOf(req, tenant, id);
    const links: DdiPoll["_links"] = {};
    if (polled.cancelAction !== null) links.cancelAction = { href: `${base}/cancelAction/${polled.cancelAction}` };
    else if (polled.deploymentBase !== null) {
      links.deploymentBase = { href: `${base}/deploymentBase/${polled.deploymentBase}` };
    }
    if (polled.attributesWanted) links.configData = { href: `${base}/configData` };
    return { config: { polling: { sleep } }, _links: links };
  };
  mount(
    api,
    routes.ddiPoll,
    async (c, { params: { tenant, controllerId: id } }) =>
      c.json(await runAs(deviceAs(c, id, trustProxy), () => poll(c.req.raw, tenant, id, c.get("polledDevice")))),
    {
      // Below Hono's context when its guard admits it (server/lean_routes.ts): the hottest route of a fleet.
      lean: ({ raw }, { params: { tenant, controllerId: id } }, { polled }) => poll(raw, tenant, id, polled),
    },
  );

  mount(api, routes.ddiDeployment, async (c, { params: { tenant, controllerId: id, actionId } }) => {
    const action = await ddi.action(id, actionId);
    if (!action) throw noAction(id, actionId);
    const { firmware } = action;
    const href = `${baseOf(c.req.raw, tenant, id)}/softwaremodules/${action.id}/artifacts/${
      encodeURIComponent(firmware.name)
    }`;
    return c.json(
      {
        id: String(action.id),
        deployment: {
          download: "forced",
          update: "forced",
          chunks: [{
            part: "os",
            version: versionOf(firmware.name),
            name: firmware.name,
            artifacts: [{
              filename: firmware.name,
              size: firmware.size,
              hashes: { sha1: firmware.sha1, md5: firmware.md5, sha256: firmware.sha256 },
              _links: { download: { href }, "download-http": { href } },
            }],
            ...(firmware.signature ? { metadata: signatureMetadata(firmware.signature) } : {}),
          }],
        },
      } satisfies DdiDeployment,
    );
  });

  mount(api, routes.ddiDeploymentFeedback, async (c, { params: { controllerId: id, actionId }, body }) => {
    await deviceApi.ddiFeedback(id, actionId, "deployment", body, product);
    return c.body(null, 200);
  });

  mount(api, routes.ddiCancel, async (c, { params: { controllerId: id, actionId } }) => {
    const action = await deviceApi.ddiAction(id, actionId);
    if (!action || (action.state !== "canceling" && action.state !== "canceled")) throw noAction(id, actionId);
    return c.json({ id: String(action.id), cancelAction: { stopId: String(action.id) } } satisfies DdiCancel);
  });

  mount(api, routes.ddiCancelFeedback, async (c, { params: { controllerId: id, actionId }, body }) => {
    await deviceApi.ddiFeedback(id, actionId, "cancel", body, product);
    return c.body(null, 200);
  });

  mount(api, routes.ddiConfigData, async (c, { params: { controllerId: id }, body }) => {
    await runAs(deviceAs(c, id, trustProxy), () => deviceApi.ddiConfigData(id, body.data));
    return c.body(null, 200);
  });

  // HEAD too: Hono answers it with this route.
  mountHead(api, routes.ddiArtifactHead);
  mount(api, routes.ddiArtifact, async (c, { params: { controllerId: id, moduleId, filename } }) => {
    const action = await deviceApi.ddiAction(id, moduleId);
    if (!action || action.firmware.name !== filename) {
      throw notFound(`Device ${id} has no artifact ${filename} in action ${moduleId}.`);
    }
    return await firmwareDownload(c, action.firmware, {
      files: ctx.files,
      redirect: ctx.config.FIRMWARE_DOWNLOAD === "redirect"
        ? { ttlSeconds: ctx.config.FIRMWARE_URL_TTL_SECONDS, onRedirect: () => metrics.firmwareRedirects.inc() }
        : null,
      contentType: "application/octet-stream",
      counted: (body) => metrics.countedBody(body, servedToDevices),
    });
  });
}
