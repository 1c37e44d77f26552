import { DatabaseSync } from "node:sqlite";
const db = new DatabaseSync("/tmp/tx/big.sqlite3", { readOnly: true });
const cols = "id, phase_id, position, current, frequency, polarity, rise_time, hold_time, fall_time";
function t<T>(label: string, f: () => T): T { const t0 = performance.now(); const r = f(); console.log(label, (performance.now() - t0).toFixed(0)); return r; }
const s = db.prepare(`SELECT ${cols} FROM channels`); (s as any).setReturnArrays(true);
const rows = s.all() as any[][];
const phases = new Map<number, { duration: number; channels: unknown[] }>();
for (let i = 1; i <= 100000; i++) phases.set(i, { duration: 1, channels: [] });
const amount = (table: string, id: number, col: string, v: unknown) => { if (typeof v !== "number" || !Number.isFinite(v) || v < 0) throw new Error(); return v === 0 ? 0 : v; };
for (let k = 0; k < 3; k++) {
  for (const p of phases.values()) p.channels = [];
  t("destructure only", () => { let n = 0; for (const [id, ph, pos, c, f, pol, r, h, fa] of rows) n += id; return n; });
  t("index loop", () => { let n = 0; for (let i = 0; i < rows.length; i++) { const r = rows[i]; n += r[0]; } return n; });
  t("set", () => { const s = new Set<number>(); for (const r of rows) s.add(r[0]); return s; });
  t("map get+push", () => { for (const r of rows) phases.get(r[1])!.channels.push({ current: amount("c", r[0], "current", r[3]), frequency: amount("c", r[0], "f", r[4]), polarity: (r[5] as string).trim(), riseTime: amount("c", r[0], "r", r[6]), holdTime: amount("c", r[0], "h", r[7]), fallTime: amount("c", r[0], "fa", r[8]) }); });
  t("stringify", () => { let n = 0; for (const p of phases.values()) n += JSON.stringify(p).length; return n; });
}
