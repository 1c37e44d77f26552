import type { AppContext } from "../context.ts";

// TODO(device-api helper): CONTRACT §1 DEMO=1 data.
export async function seedDemo(_ctx: AppContext): Promise<void> {}
