import { useQuery } from "@tanstack/react-query";
import { Card } from "primereact/card";
import { Link } from "wouter";
import { ApiError } from "../../../../shared/client.ts";
import { LoadError } from "../../components/LoadState.tsx";
import { useRole } from "../../lib/role.ts";
import { AuditTable } from "./AuditTable.tsx";
import { auditQuery } from "./queries.ts";
import { auditUrlQuery, EMPTY_FILTERS } from "./urlState.ts";

const SHOWN = 10;

/**
 * The history of one entity (a device, a firmware, a product type), newest first: its last entries and a link to the
 * whole of it in the audit log. Hidden for those whose role may not read the trail (viewers: 403).
 */
export function AuditHistory(
  { targetType, targetId, title = "History" }: { targetType: string; targetId?: string; title?: string },
) {
  const { role, can } = useRole();
  const history = useQuery({ ...auditQuery({ targetType, targetId, rowsPerPage: SHOWN }), enabled: can("operator") });
  if (role !== undefined && !can("operator")) return null;
  if (history.error instanceof ApiError && history.error.status === 403) return null;
  const page = history.data;
  const more = page ? `${page.total}${page.exact ? "" : "+"}` : "";
  const href = `/audit${auditUrlQuery({ ...EMPTY_FILTERS, page: 0, size: 25, targetType, targetId: targetId ?? "" })}`;
  return (
    <Card title={title} className="audit-history">
      {history.error ? <LoadError error={history.error} onRetry={() => void history.refetch()} /> : (
        <AuditTable
          entries={page?.data ?? []}
          pending={history.isPending}
          rows={3}
          label={title}
          names={page?.names}
          compact
        />
      )}
      {page && page.total > 0 && (
        <p className="mt-2 mb-0">
          <Link href={href}>
            {page.total > page.data.length ? `All ${more} entries in the audit log` : "Open in the audit log"}
          </Link>
        </p>
      )}
    </Card>
  );
}
