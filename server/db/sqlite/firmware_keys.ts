/** rules/rollouts.ts's bucket() in SQL: the function open.ts registers on the connection (the kept keys, rollouts). */
export const BUCKET = (id: string) => `rollout_bucket(${id}, d.device_id)`;
