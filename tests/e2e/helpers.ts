/**
 * Browser tests: the real server (testing/server.ts) and Debian's Chromium (testing/chromium.ts) through
 * playwright-core. No browser is ever downloaded. Screenshots go to one folder, printed once per test file:
 *
 *   e2eTest("devices list", async ({ page, signIn, screenshot, api }) => { ... });
 */
import { type BrowserContext, chromium, type Page } from "playwright-core";
import type { ApiClient } from "../../shared/client.ts";
import { CHROMIUM_LAUNCH } from "../../testing/chromium.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD, type StartOptions, startServer, type TestServer } from "../../testing/server.ts";

export { ADMIN_EMAIL, ADMIN_PASSWORD };

const ROOT = new URL("../../", import.meta.url).pathname;
export const SCREENSHOT_DIR = Deno.env.get("E2E_SCREENSHOT_DIR") ?? `${ROOT}.cache/e2e-screenshots`;

let announced = false;

export interface ConsoleContext {
  srv: TestServer;
  /** An API client signed in as the admin, for seeding and checking through the real API. */
  api: ApiClient & { token: string };
  browser: BrowserContext;
  page: Page;
  /** Opens a path of the console (e.g. "/devices"). */
  visit(path: string, page?: Page): Promise<void>;
  /** Fills the sign-in form and waits for the shell. */
  signIn(page?: Page, email?: string, password?: string): Promise<void>;
  /** Saves `<SCREENSHOT_DIR>/<name>.png` and returns its path. */
  screenshot(name: string, page?: Page): Promise<string>;
}

export async function launchBrowser(): Promise<BrowserContext> {
  const profile = await Deno.makeTempDir({ prefix: "console-e2e-profile-" });
  const browser = await chromium.launchPersistentContext(profile, {
    ...CHROMIUM_LAUNCH,
    viewport: { width: 1400, height: 900 },
    locale: "en-US",
    timezoneId: "UTC",
  });
  const close = browser.close.bind(browser);
  browser.close = async (...args) => {
    await close(...args);
    await Deno.remove(profile, { recursive: true }).catch(() => {});
  };
  return browser;
}

/** Starts the server and a browser, runs fn, and always cleans both up. Browser errors fail the test. */
export async function withConsole(
  fn: (c: ConsoleContext) => Promise<void>,
  opts: StartOptions = {},
  name = "test",
): Promise<void> {
  if (!announced) {
    announced = true;
    await Deno.mkdir(SCREENSHOT_DIR, { recursive: true });
    console.log(`e2e screenshots: ${SCREENSHOT_DIR}`);
  }
  await using srv = await startServer(opts);
  const api = await srv.login();
  const browser = await launchBrowser();
  const pageErrors: string[] = [];
  try {
    const page = browser.pages()[0] ?? await browser.newPage();
    page.setDefaultTimeout(15_000);
    page.on("pageerror", (err) => pageErrors.push(err.message));
    const ctx: ConsoleContext = {
      srv,
      api,
      browser,
      page,
      async visit(path, p = page) {
        await p.goto(`${srv.url}${path}`);
      },
      async signIn(p = page, email = ADMIN_EMAIL, password = ADMIN_PASSWORD) {
        await p.getByLabel("E-mail").fill(email);
        await p.getByLabel("Password", { exact: true }).fill(password);
        await p.getByRole("button", { name: "Sign in" }).click();
        // The shell is in (its menu may be a closed drawer on a narrow screen).
        await p.locator("#main-content").waitFor({ state: "attached" });
      },
      async screenshot(name, p = page) {
        const path = `${SCREENSHOT_DIR}/${name}.png`;
        await p.screenshot({ path, fullPage: true });
        return path;
      },
    };
    try {
      await fn(ctx);
    } catch (err) {
      const shot = await ctx.screenshot(`FAILED-${name.replace(/[^A-Za-z0-9]+/g, "-").slice(0, 60)}`).catch(() => null);
      if (shot) console.log(`screenshot of the failure: ${shot} (at ${page.url()})`);
      const refused = srv.output().split("\n").filter((l) => /ERROR| [45]\d\d [\d.]+ms/.test(l)).slice(-15);
      if (refused.length) console.log(`server errors and refusals:\n${refused.join("\n")}`);
      throw err;
    }
    if (pageErrors.length) throw new Error(`Uncaught errors in the page:\n${pageErrors.join("\n")}`);
  } finally {
    await browser.close();
  }
}

/** Deno.test for browser tests: playwright keeps pipes and timers open across steps, so no sanitizers. */
export function e2eTest(
  name: string,
  fn: (c: ConsoleContext, t: Deno.TestContext) => Promise<void>,
  opts: StartOptions = {},
) {
  Deno.test({
    name,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: (t) => withConsole((c) => fn(c, t), opts, name),
  });
}

/** Devices arrive as the fleet makes them: through the device API check-in. */
export async function checkInDevices(
  srv: TestServer,
  ids: string[],
  versionInfo = { app: "2.4.1", os: "Linux 6.1", channels: ["ch-fw 1.2", "ch-fw 1.3"] },
): Promise<void> {
  const { DeviceClient } = await import("../../shared/client.ts");
  const { DEVICE_API_KEY } = await import("../../testing/server.ts");
  for (let i = 0; i < ids.length; i += 20) {
    await Promise.all(
      ids.slice(i, i + 20).map((id) =>
        new DeviceClient(id, { baseUrl: srv.url, apiKey: DEVICE_API_KEY }).checkin({ versionInfo })
      ),
    );
  }
}

/** Imports treatments through POST treatments/import with a file made by testing/import_db.ts. */
export async function importTreatments(
  api: ApiClient,
  treatments: import("../../testing/import_db.ts").ImportTreatment[],
): Promise<void> {
  const { makeImportDb } = await import("../../testing/import_db.ts");
  const { fileSource } = await import("../../testing/files.ts");
  const dir = await Deno.makeTempDir({ prefix: "console-e2e-import-" });
  try {
    const path = `${dir}/treatments.sqlite3`;
    makeImportDb(path, treatments);
    await api.importTreatments(await fileSource(path));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** A treatment for importTreatments with `channels` channels in its widest phase. */
export function treatment(name: string, channels: number, category = "Pain") {
  const channel = { current: 10, frequency: 80, polarity: "biphasic", riseTime: 100, holdTime: 1000, fallTime: 100 };
  return {
    name,
    category,
    use: "Demo use",
    phases: [
      { duration: 60, channels: [channel] },
      { duration: 120, channels: Array.from({ length: channels }, () => channel) },
    ],
  };
}

/** Waits until no progress bar shows (nothing is being fetched). */
export async function settled(page: Page): Promise<void> {
  await page.waitForFunction(() => !document.querySelector("[aria-label=Loading]"));
}

/** Opens a PrimeReact Dropdown and picks the option with exactly this label. */
export async function pick(page: Page, dropdown: import("playwright-core").Locator, option: string): Promise<void> {
  await settled(page);
  await dropdown.click();
  const panel = page.locator(".p-dropdown-panel");
  await panel.waitFor();
  await panel.getByRole("option", { name: option, exact: true }).click();
  await panel.waitFor({ state: "hidden" });
}

/** Retries an assertion until it passes or `ms` run out (for effects that land after the UI shows them). */
export async function assertEventually(check: () => Promise<void>, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * A real .xz of random bytes (xz cannot shrink them, so the upload takes long enough to watch). Compressed from a
 * file: piping megabytes through makeXzFile's stdin would fill xz's stdout pipe before it is read.
 */
export async function bigXzFile(dir: string, name: string, size: number): Promise<string> {
  const raw = new Uint8Array(size);
  for (let i = 0; i < size; i += 65_536) crypto.getRandomValues(raw.subarray(i, Math.min(size, i + 65_536)));
  await Deno.writeFile(`${dir}/raw.bin`, raw);
  const out = await new Deno.Command("xz", { args: ["-z", "-c", "-0", `${dir}/raw.bin`], stdout: "piped" }).output();
  if (out.code !== 0) throw new Error("xz failed");
  await Deno.writeFile(`${dir}/${name}`, out.stdout);
  return `${dir}/${name}`;
}

/** Chromium's own upload throttling (null lifts it), so the progress of a local upload is visible for a while. */
export async function throttleUpload(page: Page, bytesPerSecond: number | null): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: bytesPerSecond ?? -1,
  });
}
