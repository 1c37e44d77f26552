import type { AuditEntry, AuditFilter } from "../../../shared/schemas/audit.ts";
import type { AuditCheckpoint, AuditVerification, NewAuditEntry } from "../rules/audit.ts";

export interface AuditPage {
  data: AuditEntry[];
  total: number;
  /** False when `total` is a lower bound (a filtered count stopped at FILTERED_COUNT_LIMIT past the page). */
  exact: boolean;
}

/**
 * The audit trail. Entries are appended by the stores themselves, inside the transaction of each change (each engine's
 * appendAudit); this interface only reads, plus `record` for events that change nothing else (a sign-in). Nothing
 * here, nor anywhere in the API, edits or deletes an entry.
 */
export interface AuditStore {
  /** Appends one entry in a transaction of its own (actor and ip from the audit context). */
  record(entry: NewAuditEntry): Promise<AuditEntry>;
  /** One page, newest first. */
  list(filter: AuditFilter, page: number, perPage: number): Promise<AuditPage>;
  /**
   * Up to `limit` entries matching the filter with seq below `beforeSeq` (all when null), newest first: the CSV
   * export walks the whole trail this way, one bounded batch at a time.
   */
  before(filter: AuditFilter, beforeSeq: number | null, limit: number): Promise<AuditEntry[]>;
  /** Up to `limit` entries with seq above `afterSeq`, oldest first, unfiltered: audit-verify walks the chain so. */
  after(afterSeq: number, limit: number): Promise<AuditEntry[]>;
  /** How many entries there are (a counter row moved with every append). */
  count(): Promise<number>;
  /** The chain's head: how many entries, and the last one's hash ("" before the first): what a checkpoint publishes. */
  head(): Promise<AuditCheckpoint>;
  /**
   * Recomputes the whole chain (audit-verify); with checkpoints published earlier, also that the chain holds each one
   * (its entry `count` has `hash`), so a truncated or rewritten tail is caught.
   */
  verify(checkpoints?: readonly AuditCheckpoint[]): Promise<AuditVerification>;
}
