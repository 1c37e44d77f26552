import { type Command, InvalidArgumentError } from "commander";
import { AuditAction } from "../../../shared/schemas/audit.ts";
import { formatDate, printJson, printTable } from "../../lib/output.ts";
import { globals, signedInClient } from "../../lib/session.ts";

function wholeNumber(min: number, max: number) {
  return (value: string): number => {
    if (!/^\d{1,9}$/.test(value) || Number(value) < min || Number(value) > max) {
      throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}.`);
    }
    return Number(value);
  };
}

function action(value: string): string {
  if (!AuditAction.safeParse(value).success) {
    throw new InvalidArgumentError(`expected one of ${AuditAction.options.join(", ")}.`);
  }
  return value;
}

function instant(value: string): string {
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(Date.parse(value))) {
    throw new InvalidArgumentError("expected an ISO 8601 date or time, e.g. 2026-11-22 or 2026-11-22T10:00:00Z.");
  }
  return value;
}

/** At most `n` characters, the rest as an ellipsis: a table row stays one line. */
const clip = (s: string, n: number) => s.length <= n ? s : `${s.slice(0, n - 1)}…`;

interface Options {
  page?: number;
  perPage?: number;
  actor?: string;
  action?: string;
  targetType?: string;
  targetId?: string;
  from?: string;
  to?: string;
}

export function registerAuditList(audit: Command): void {
  audit
    .command("list")
    .description("list audit trail entries, newest first, one page at a time (admins and operators)")
    .option("--page <P>", "page number, from 0", wholeNumber(0, 1_000_000_000))
    .option("--per-page <N>", "entries per page, 1-100 (default 25)", wholeNumber(1, 100))
    .option("--actor <who>", "only entries by this actor (an operator's e-mail, a token's name, a device id)")
    .option("--action <action>", "only this action, e.g. device.update", action)
    .option("--target-type <type>", "only entries about this kind of thing (device, firmware, product_type, ...)")
    .option("--target-id <id>", "only entries about the thing with this id")
    .option("--from <time>", "only entries at or after this time (ISO 8601)", instant)
    .option("--to <time>", "only entries before this time (ISO 8601)", instant)
    .addHelpText(
      "after",
      `
Examples:
  $ deno task cli audit list --target-type device --target-id JB-000123
  $ deno task cli audit list --actor ops@example.com --from 2026-11-01 --to 2026-12-01
  $ deno task cli --json audit list --action firmware.upload | jq -r '.data[].details.sha256'`,
    )
    .action(async (opts: Options, cmd: Command) => {
      const g = globals(cmd);
      const api = await signedInClient(cmd);
      const list = await api.listAudit({
        page: opts.page,
        rowsPerPage: opts.perPage,
        actor: opts.actor,
        action: opts.action,
        targetType: opts.targetType,
        targetId: opts.targetId,
        from: opts.from,
        to: opts.to,
      });
      if (g.json) return printJson(list);
      if (list.data.length > 0) {
        printTable(
          ["#", "AT", "ACTOR", "ACTION", "TARGET", "IP", "DETAILS"],
          list.data.map((e) => [
            String(e.seq),
            formatDate(e.at),
            `${e.actor.type === "operator" ? "" : `${e.actor.type}:`}${e.actor.name}`,
            e.action,
            e.target ? `${e.target.type}:${clip(e.target.name, 40)}` : "-",
            e.ip ?? "-",
            Object.keys(e.details).length ? clip(JSON.stringify(e.details), 60) : "-",
          ]),
        );
      }
      const perPage = list.per_page;
      const total = `${list.total}${list.exact ? "" : "+"}`;
      const pages = Math.max(1, Math.ceil(list.total / perPage));
      const first = list.page * perPage;
      console.log(
        list.data.length === 0
          ? `No entries on page ${list.page} (${total} in all, pages 0-${pages - 1}).`
          : `Entries ${first + 1}-${first + list.data.length} of ${total}; page ${list.page} of pages 0-${pages - 1}${
            list.exact ? "" : "+"
          }.`,
      );
    });
}
