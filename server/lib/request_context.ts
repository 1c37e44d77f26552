/**
 * The request a line of log belongs to: app.ts runs each request inside `withRequest`, so whatever that request logs,
 * however deep, carries its X-Request-Id.
 */
import { AsyncLocalStorage } from "node:async_hooks";

const current = new AsyncLocalStorage<string>();

export const withRequest = <T>(requestId: string, fn: () => T): T => current.run(requestId, fn);

/** The id of the request being handled, or undefined outside one. */
export const currentRequestId = (): string | undefined => current.getStore();

/** A caller's X-Request-Id is kept when it is sane (short, printable, no spaces); else a new one is made. */
export function requestIdFrom(header: string | undefined): string {
  return header && /^[A-Za-z0-9._:\/+=-]{1,128}$/.test(header) ? header : crypto.randomUUID();
}
