/** Timestamps are ISO 8601 text in UTC with milliseconds, made by the server whatever the engine. */
export const now = () => new Date().toISOString();
