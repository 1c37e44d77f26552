import { useQuery } from "@tanstack/react-query";
import { Button } from "primereact/button";
import { Dropdown } from "primereact/dropdown";
import { InputText } from "primereact/inputtext";
import { type FormEvent, useEffect, useMemo, useState } from "react";
import { useLocation, useSearch } from "wouter";
import { PAGE_SIZES } from "../../../../shared/schemas/device.ts";
import { AUDIT_ACTIONS } from "../../../../shared/schemas/audit.ts";
import { dropdownA11y } from "../../components/dropdownA11y.ts";
import { LoadState } from "../../components/LoadState.tsx";
import { TablePaginator } from "../../components/TablePaginator.tsx";
import { useNotifyError } from "../../lib/notify.ts";
import { AuditTable } from "./AuditTable.tsx";
import { actionText } from "./describe.ts";
import { auditQuery, downloadAuditCsv, TARGET_TYPE_OPTIONS } from "./queries.ts";
import { apiFilters, auditUrlQuery, type AuditUrlState, EMPTY_FILTERS, readAuditUrl } from "./urlState.ts";

type Filters = typeof EMPTY_FILTERS;

/** The "no filter" option (PrimeReact shows an empty string value as no selection). */
const ANY = "*";
const ACTION_OPTIONS = [
  { value: ANY, label: "Any action" },
  ...AUDIT_ACTIONS.map((a) => ({ value: a, label: actionText(a) })),
];
const TYPE_OPTIONS = [{ value: ANY, label: "Any kind" }, ...TARGET_TYPE_OPTIONS];

/**
 * The audit log: every change and security event, newest first, server-paged; the filters, page and size live in the
 * URL query (a filtered view can be shared as a link). Filters apply on Apply (or Enter); Download CSV exports what
 * the filters select, whole.
 */
export default function AuditLogScreen() {
  const search = useSearch();
  const [, navigate] = useLocation();
  const state = useMemo(() => readAuditUrl(new URLSearchParams(search)), [search]);
  const go = (next: AuditUrlState) => navigate(`/audit${auditUrlQuery(next)}`);

  // The form follows the URL (back/forward, a history link) and writes to it on Apply.
  const [form, setForm] = useState<Filters>(state);
  useEffect(() => setForm(state), [search]);
  const set = (key: keyof Filters) => (value: string) => setForm((f) => ({ ...f, [key]: value }));

  const filters = apiFilters(state);
  const list = useQuery(auditQuery({ ...filters, page: state.page, rowsPerPage: state.size }));
  const total = list.data?.total ?? 0;
  const exact = list.data?.exact ?? true;
  const [downloading, setDownloading] = useState(false);

  // A page beyond the end moves to the last page.
  const lastPage = Math.max(0, Math.ceil(total / state.size) - 1);
  useEffect(() => {
    if (list.data && !list.isPlaceholderData && exact && state.page > lastPage) {
      navigate(`/audit${auditUrlQuery({ ...state, page: lastPage })}`, { replace: true });
    }
  }, [list.data, list.isPlaceholderData, state.page, lastPage]);

  const apply = (e: FormEvent) => {
    e.preventDefault();
    go({ ...state, ...form, page: 0 });
  };
  const filtered = (Object.keys(EMPTY_FILTERS) as (keyof Filters)[]).some((k) => state[k] !== "");
  const notifyError = useNotifyError();

  return (
    <section>
      <div className="page-header">
        <div>
          <h1>Audit log</h1>
          <div className="page-sub">
            {list.data && !list.error
              ? `${total}${exact ? "" : "+"} entr${total === 1 && exact ? "y" : "ies"}${filtered ? " match" : ""}`
              : "\u00a0"}
          </div>
        </div>
        <Button
          label="Download CSV"
          icon="pi pi-download"
          outlined
          loading={downloading}
          onClick={async () => {
            setDownloading(true);
            try {
              await downloadAuditCsv(filters);
            } catch (err) {
              notifyError(err);
            } finally {
              setDownloading(false);
            }
          }}
        />
      </div>
      <form className="audit-filters" onSubmit={apply} aria-label="Filters">
        <div className="audit-filter">
          <label htmlFor="audit-actor">Actor</label>
          <InputText
            id="audit-actor"
            value={form.actor}
            maxLength={320}
            placeholder="E-mail, device or token"
            onChange={(e) => set("actor")(e.target.value)}
          />
        </div>
        <div className="audit-filter">
          <label htmlFor="audit-action">Action</label>
          <Dropdown
            inputId="audit-action"
            value={form.action || ANY}
            options={ACTION_OPTIONS}
            onChange={(e) => set("action")(e.value === ANY ? "" : e.value as string)}
            filter
            pt={dropdownA11y("Action")}
          />
        </div>
        <div className="audit-filter">
          <label htmlFor="audit-target-type">Target kind</label>
          <Dropdown
            inputId="audit-target-type"
            value={TYPE_OPTIONS.some((o) => o.value === form.targetType) ? form.targetType || ANY : ANY}
            options={TYPE_OPTIONS}
            onChange={(e) => set("targetType")(e.value === ANY ? "" : e.value as string)}
            pt={dropdownA11y("Target kind")}
          />
        </div>
        <div className="audit-filter">
          <label htmlFor="audit-target-id">Target id</label>
          <InputText
            id="audit-target-id"
            value={form.targetId}
            maxLength={320}
            onChange={(e) => set("targetId")(e.target.value)}
          />
        </div>
        <div className="audit-filter">
          <label htmlFor="audit-from">From (UTC day)</label>
          <InputText id="audit-from" type="date" value={form.from} onChange={(e) => set("from")(e.target.value)} />
        </div>
        <div className="audit-filter">
          <label htmlFor="audit-until">Until (UTC day)</label>
          <InputText id="audit-until" type="date" value={form.until} onChange={(e) => set("until")(e.target.value)} />
        </div>
        <div className="audit-filter-buttons">
          <Button type="submit" label="Apply" icon="pi pi-filter" />
          <Button
            type="button"
            label="Clear"
            outlined
            disabled={!filtered && Object.values(form).every((v) => v === "")}
            onClick={() => go({ ...state, ...EMPTY_FILTERS, page: 0 })}
          />
        </div>
      </form>
      <LoadState fetching={list.isFetching} error={list.error} onRetry={() => void list.refetch()} />
      {!list.error && (
        <>
          <AuditTable
            entries={list.data?.data ?? []}
            pending={list.isPending}
            rows={state.size}
            label="Audit log"
            names={list.data?.names}
            stale={list.isPlaceholderData}
          />
          <div className={list.data ? undefined : "paginator-pending"} aria-hidden={!list.data || undefined}>
            <TablePaginator
              page={state.page}
              rows={state.size}
              totalRecords={total}
              rowsPerPageOptions={PAGE_SIZES}
              onPageChange={(e) =>
                go(e.rows !== state.size ? { ...state, size: e.rows, page: 0 } : { ...state, page: e.page })}
            />
          </div>
        </>
      )}
    </section>
  );
}
