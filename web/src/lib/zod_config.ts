import * as z from "zod";

// zod compiles object parsers with `new Function` after probing whether eval is allowed; under the console's CSP
// (script-src 'self', no 'unsafe-eval') the probe itself logs a violation on every page. Parse without it.
z.config({ jitless: true });
