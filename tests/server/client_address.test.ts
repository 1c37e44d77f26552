import assert from "node:assert/strict";
import { addressKey } from "../../server/auth/client_address.ts";

Deno.test("client addresses as throttle keys: IPv4 as is, IPv6 by its /64, anything else refused", () => {
  const cases: [string, string | null][] = [
    ["198.51.100.7", "198.51.100.7"],
    [" 198.51.100.7 ", "198.51.100.7"],
    ["198.51.100.7:51234", "198.51.100.7"],
    ["::ffff:198.51.100.7", "198.51.100.7"],
    ["[::ffff:c633:6407]:443", "198.51.100.7"],
    ["2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"],
    ["2001:DB8:1:2::ab", "2001:db8:1:2::/64"],
    ["2001:db8::1", "2001:db8:0:0::/64"],
    ["fe80::1%eth0", "fe80:0:0:0::/64"],
    ["::1", "0:0:0:0::/64"],
    ["256.1.1.1", null],
    ["1.2.3", null],
    ["2001:db8::1::2", null],
    ["1:2:3:4:5:6:7:8:9", null],
    ["unknown", null],
    ["", null],
    ["_hidden", null],
  ];
  for (const [text, key] of cases) assert.equal(addressKey(text), key, text);
});
