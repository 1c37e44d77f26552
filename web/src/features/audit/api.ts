/**
 * What other features use of the audit trail (a feature reaches another only through its api.ts): the history card
 * of one device, firmware or product type, and the queries.
 */
export { AuditHistory } from "./AuditHistory.tsx";
export * from "./queries.ts";
