import { startServer } from "../helpers/server.ts";
await using srv = await startServer();
const api = await srv.login();
for (const n of [8_000, 20_000, 100_000, 1_000_000]) {
  try {
    const r = await srv.fetch(`/api/v1/devices?q=${"a".repeat(n)}`, { token: api.token });
    console.log(n, r.status, (await r.text()).slice(0, 200), r.headers.get("content-security-policy")?.slice(0,30));
  } catch (e) { console.log(n, "fetch error", String(e).slice(0, 200)); }
}
for (const n of [8_000, 100_000]) {
  try {
    const r = await srv.fetch(`/api/v1/devices`, { token: api.token, headers: { "x-big": "a".repeat(n) } });
    console.log("hdr", n, r.status, (await r.text()).slice(0, 200));
  } catch (e) { console.log("hdr", n, "fetch error", String(e).slice(0, 200)); }
}
for (const p of ["/api/v1/devices/", "/api/v1//devices", "/api/v1/devices//dev-1", "/API/V1/devices", "/api/v1/devices/%2e%2e/device_types"]) {
  const r = await srv.fetch(p, { token: api.token });
  console.log(p, r.status, (await r.text()).slice(0, 120));
}
