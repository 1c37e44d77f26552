/** `rollouts create|list|show|start|pause|resume|advance|retry|cancel|promote` (docs/REQUIREMENTS.md §13). */
import { type Command, InvalidArgumentError } from "commander";
import { type ApiClient, ApiError } from "../../../shared/client.ts";
import type { Rollout, RolloutAction } from "../../../shared/schemas/rollout.ts";
import { RefusedError, TimedOutError } from "../../lib/errors.ts";
import { findFirmware } from "../../lib/lookup.ts";
import { formatDate, orDash, printFields, printJson, printTable } from "../../lib/output.ts";
import { globals, signedInClient } from "../../lib/session.ts";

/** `1,10,50,100` -> [1, 10, 50, 100] (the server checks the rules: increasing, ending at 100). */
function parseStages(value: string): number[] {
  const stages = value.split(",").map((s) => Number(s.trim()));
  if (stages.some((n) => !Number.isFinite(n) || n <= 0)) {
    throw new InvalidArgumentError("stages are percentages separated by commas, e.g. 1,10,50,100.");
  }
  return stages;
}

function parsePercent(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 100) throw new InvalidArgumentError("a percentage from 0 to 100.");
  return n;
}

function parseSeconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || n > 3600) throw new InvalidArgumentError("seconds, more than 0.");
  return n;
}

/** --timeout: seconds, more than 0, at most a week. */
function parseTimeout(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || n > 604_800) {
    throw new InvalidArgumentError("seconds, more than 0 and at most 604800 (a week).");
  }
  return n;
}

/** One line of progress: state, stage, counts. */
export function progressLine(r: Rollout): string {
  const c = r.counts;
  const stage = r.stage < 0 ? "not started" : `stage ${r.stage + 1}/${r.stages.length} (${r.stages[r.stage]} %)`;
  return `${r.name}: ${r.state}, ${stage}; ${c.installed}/${c.inStage} installed, ${c.failed} failed, ${c.pending} pending (${
    c.downloading + c.installing
  } in progress), ${c.targeted} targeted${r.pausedReason ? `; ${r.pausedReason}` : ""}`;
}

/** A product type by id or exact name; "all" means every device. */
async function productTypeId(api: ApiClient, value: string): Promise<string | null> {
  if (value === "all") return null;
  const types = await api.listProductTypes();
  const found = types.find((t) => t._id === value) ?? types.find((t) => t.name === value);
  if (!found) throw new RefusedError(`No product type with id or name '${value}' (see product-types list).`);
  return found._id;
}

function printRollout(r: Rollout): void {
  printFields([
    ["ID", r._id],
    ["Name", r.name],
    ["State", r.state],
    ["Firmware", r.firmwareId],
    ["Product type", orDash(r.productTypeId) === "-" ? "all devices" : r.productTypeId!],
    ["Stages", r.stages.map((s, i) => (i === r.stage ? `[${s} %]` : `${s} %`)).join(" -> ")],
    ["Failure threshold", `${r.failureThreshold} %`],
    ["Auto-advance", r.autoAdvance ? "yes" : "no"],
    ["Paused because", orDash(r.pausedReason)],
    ["Targeted", String(r.counts.targeted)],
    ["In stage", String(r.counts.inStage)],
    ["Downloading", String(r.counts.downloading)],
    ["Installing", String(r.counts.installing)],
    ["Installed", String(r.counts.installed)],
    ["Failed", String(r.counts.failed)],
    ["Pending", `${r.counts.pending} (in the stage, no final report)`],
    ["Created", `${formatDate(r.createdAt)} by ${r.createdBy}`],
    ["Updated", formatDate(r.updatedAt)],
  ]);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function registerRollouts(rollouts: Command): void {
  rollouts
    .command("create")
    .description("create a draft rollout (start it with rollouts start)")
    .requiredOption("--firmware <idOrName>", "the firmware to ship")
    .option("--name <name>", "a name (default: the firmware's name)")
    .option("--product-type <idOrName>", "the product type to target, or 'all'", "all")
    .option("--stages <list>", "cumulative percentages, ending at 100", parseStages)
    .option("--threshold <percent>", "failed share of a stage that pauses the rollout (default 5)", parsePercent)
    .option("--no-auto-advance", "widen only when told (rollouts advance)")
    .option("--start", "start it at once")
    .addHelpText(
      "after",
      `\nExample:\n  $ deno task cli rollouts create --firmware fw-1.4.2.xz --stages 1,10,50,100 --threshold 2 --start`,
    )
    .action(async (opts, cmd: Command) => {
      const g = globals(cmd);
      const api = await signedInClient(cmd);
      const firmware = await findFirmware(api, opts.firmware);
      let rollout = await api.createRollout({
        name: opts.name ?? firmware.name,
        firmwareId: firmware._id,
        productTypeId: await productTypeId(api, opts.productType),
        ...(opts.stages ? { stages: opts.stages } : {}),
        ...(opts.threshold !== undefined ? { failureThreshold: opts.threshold } : {}),
        autoAdvance: opts.autoAdvance !== false,
      });
      if (opts.start) {
        try {
          rollout = await api.rolloutAction(rollout._id, "start");
        } catch (err) {
          // The draft stays: say which, and how to start it later or cancel it (a draft is never deleted).
          if (g.json) printJson(rollout);
          const why = err instanceof ApiError ? err.msg : err instanceof Error ? err.message : String(err);
          throw new RefusedError(
            `Rollout ${rollout.name} (${rollout._id}) was created but not started: ${why} It is left as a draft: ` +
              `start it later with \`deno task cli rollouts start ${rollout._id}\`, or drop it with ` +
              `\`deno task cli rollouts cancel ${rollout._id}\`.`,
          );
        }
      }
      if (g.json) return printJson(rollout);
      console.log(`Rollout ${rollout._id} created${opts.start ? " and started" : " (draft)"}.`);
      console.log(progressLine(rollout));
    });

  rollouts
    .command("list")
    .description("list rollouts, newest first")
    .addHelpText(
      "after",
      `\nExamples:\n  $ deno task cli rollouts list\n  $ deno task cli --json rollouts list | jq -r '.[0]._id'`,
    )
    .action(async (_opts: unknown, cmd: Command) => {
      const g = globals(cmd);
      const api = await signedInClient(cmd);
      const list = await api.listRollouts();
      if (g.json) return printJson(list);
      if (list.length === 0) return console.log("No rollouts.");
      printTable(
        ["ID", "NAME", "STATE", "STAGE", "INSTALLED", "FAILED", "PENDING", "TARGETED", "CREATED"],
        list.map((r) => [
          r._id,
          r.name,
          r.state,
          r.stage < 0 ? "-" : `${r.stage + 1}/${r.stages.length} (${r.stages[r.stage]} %)`,
          `${r.counts.installed}/${r.counts.inStage}`,
          String(r.counts.failed),
          String(r.counts.pending),
          String(r.counts.targeted),
          formatDate(r.createdAt),
        ]),
      );
    });

  rollouts
    .command("show")
    .description(
      "show one rollout; --wait follows it until finished (exit 0), paused/cancelled (exit 1) or --timeout (exit 2)",
    )
    .argument("<id>", "the rollout's id")
    .option("--wait", "print progress until the rollout finishes (exit 0) or pauses (exit 1)")
    .option("--interval <seconds>", "seconds between polls with --wait", parseSeconds, 5)
    .option("--timeout <seconds>", "with --wait: give up after this many seconds (exit 2)", parseTimeout)
    .addHelpText(
      "after",
      `
Examples:
  $ deno task cli rollouts show 3f2a...
  $ deno task cli rollouts show 3f2a... --wait --interval 10 --timeout 3600
    # in CI: exit 0 finished, 1 paused or cancelled, 2 still running after an hour`,
    )
    .action(async (id: string, opts: { wait?: boolean; interval: number; timeout?: number }, cmd: Command) => {
      const g = globals(cmd);
      if (opts.timeout !== undefined && !opts.wait) throw new InvalidArgumentError("--timeout needs --wait.");
      const api = await signedInClient(cmd);
      const deadline = opts.timeout === undefined ? Infinity : Date.now() + opts.timeout * 1000;
      let rollout = await api.getRollout(id);
      if (!opts.wait) return g.json ? printJson(rollout) : printRollout(rollout);
      let last = "";
      for (;;) {
        const line = progressLine(rollout);
        if (line !== last && !g.json) console.log(`${new Date().toISOString().slice(11, 19)} ${line}`);
        last = line;
        if (rollout.state === "finished") return g.json ? printJson(rollout) : undefined;
        if (rollout.state === "paused" || rollout.state === "cancelled" || rollout.state === "draft") {
          if (g.json) printJson(rollout);
          throw new RefusedError(
            `Rollout ${rollout.name} is ${rollout.state}${rollout.pausedReason ? `: ${rollout.pausedReason}` : "."}`,
          );
        }
        const left = deadline - Date.now();
        if (left <= 0) {
          if (g.json) printJson(rollout);
          throw new TimedOutError(
            `Rollout ${rollout.name} is still ${rollout.state} after ${opts.timeout} s: ${progressLine(rollout)}`,
          );
        }
        await sleep(Math.min(opts.interval * 1000, left));
        rollout = await api.getRollout(id);
      }
    });

  const actions: [RolloutAction, string][] = [
    ["start", "start a draft rollout at its first stage"],
    ["pause", "pause a running rollout (devices already in a stage keep the firmware)"],
    ["resume", "resume a paused rollout at its current stage (the failures so far are accepted; it never widens)"],
    ["advance", "widen a running rollout to its next stage (at the last: finish it)"],
    ["retry", "offer the firmware again to the rollout's failed devices (they count as pending again)"],
    ["cancel", "cancel a rollout: devices that did not install it return to the default"],
    ["promote", "make a finished rollout's firmware the device type's default (says how many were pending or failed)"],
  ];
  for (const [action, description] of actions) {
    rollouts
      .command(action)
      .description(description)
      .argument("<id>", "the rollout's id")
      .addHelpText("after", `\nExample:\n  $ deno task cli rollouts ${action} 3f2a...`)
      .action(async (id: string, _opts: unknown, cmd: Command) => {
        const g = globals(cmd);
        const api = await signedInClient(cmd);
        const rollout = await api.rolloutAction(id, action);
        const { pending, failed } = rollout.counts;
        if (action === "promote" && pending + failed > 0) {
          console.error(
            `Note: promoted while ${pending} device(s) had not reported and ${failed} had failed ` +
              `(deno task cli rollouts show ${rollout._id}).`,
          );
        }
        if (g.json) return printJson(rollout);
        console.log(progressLine(rollout));
      });
  }
}
