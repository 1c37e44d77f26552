/**
 * A TCP proxy in front of a test server, like a slow link: the first `passBytes` of each connection pass at once,
 * then one chunk (≤ 64 KiB) every TRICKLE_MS, ≤ 8 MiB/s. An upload of tens of MiB through it stays in flight for
 * seconds (the server has part of the body); when its client goes away, the proxy passes that on by closing the
 * server's side once the few MiB the sockets buffer have gone through.
 */
import { tcpRelay } from "../../testing/tcp_relay.ts";

const TRICKLE_MS = 8;

export interface HoldingProxy extends AsyncDisposable {
  url: string;
  /** Resolves when a connection first goes past passBytes (an upload is slowed mid-body). */
  holding: Promise<void>;
}

export function holdingProxy(target: string, passBytes: number): HoldingProxy {
  let held!: () => void;
  const holding = new Promise<void>((r) => held = r);
  const relay = tcpRelay(target, () => {
    let passed = 0;
    return {
      up: async (chunk) => {
        if (passed >= passBytes) {
          held();
          await new Promise((r) => setTimeout(r, TRICKLE_MS));
        }
        passed += chunk.length;
      },
    };
  });
  return Object.assign(relay, { holding });
}
