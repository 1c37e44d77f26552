import { DatabaseSync } from "node:sqlite";
const db = new DatabaseSync("/tmp/tx/big.sqlite3", { readOnly: true });
const cols = "id, phase_id, position, current, frequency, polarity, rise_time, hold_time, fall_time";
function t<T>(label: string, f: () => T): T { const t0 = performance.now(); const r = f(); console.log(label, (performance.now() - t0).toFixed(0)); return r; }
for (let k = 0; k < 2; k++) {
const rows = t("read", () => { const s = db.prepare(`SELECT ${cols} FROM channels`); (s as any).setReturnArrays(true); return s.all() as any[][]; });
t("isOrdered", () => { let owner = -Infinity, pos = -Infinity, id = -Infinity;
  for (const [i, o, p] of rows) { if (o < owner || (o === owner && (p < pos || (p === pos && i <= id)))) return false; owner = o, pos = p, id = i; } return true; });
t("strings", () => { const out: string[] = []; for (const [id, ph, pos, c, f, pol, r, h, fa] of rows) out.push(`{"current":${c},"frequency":${f},"polarity":${JSON.stringify(pol)},"riseTime":${r},"holdTime":${h},"fallTime":${fa}}`); return out; });
t("objects", () => { const out: any[] = []; for (const [id, ph, pos, c, f, pol, r, h, fa] of rows) out.push({current: c, frequency: f, polarity: pol, riseTime: r, holdTime: h, fallTime: fa}); return JSON.stringify(out).length; });
t("set", () => { const s = new Set<number>(); for (const r of rows) s.add(r[0]); return s; });
}
