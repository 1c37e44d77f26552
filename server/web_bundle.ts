// TODO(web): build web/dist with esbuild when missing or stale (CONTRACT §1: `deno task start` builds it).
export async function ensureWebBundle(_log: (line: string) => void): Promise<void> {}
