const HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

/** The last non-empty entry of a comma-separated forwarding header (the one the trusted proxy wrote). */
const lastEntry = (value: string | undefined) =>
  value?.split(",").map((s) => s.trim()).findLast((s) => s !== "") ?? null;

/**
 * The origin the client reached, for absolute links (hawkBit DDI's download hrefs): the request's own scheme and Host,
 * or with `trustProxy` (TRUST_PROXY=1) the proxy's X-Forwarded-Proto and X-Forwarded-Host. A host that is not a host
 * name or address is ignored.
 */
export function originOf(req: Request, trustProxy: boolean): string {
  const url = new URL(req.url);
  let proto = url.protocol.slice(0, -1);
  let host = url.host;
  if (trustProxy) {
    const p = lastEntry(req.headers.get("x-forwarded-proto") ?? undefined)?.toLowerCase();
    if (p === "http" || p === "https") proto = p;
    const h = lastEntry(req.headers.get("x-forwarded-host") ?? undefined);
    if (h && HOST.test(h)) host = h;
  }
  return `${proto}://${host}`;
}
