/** What a conditional write expects: the type lives with its check (rules/revisions.ts). */
export type { IfMatch } from "../rules/revisions.ts";
