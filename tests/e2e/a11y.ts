/**
 * axe-core (WCAG 2.0/2.1 A and AA rules) run inside the page under test. Used by tests/e2e/accessibility.test.ts so
 * that every screen and open dialog stays free of violations.
 */
import axe from "axe-core";
import type { Page } from "playwright-core";

/** axe's own source, as the package ships it for injection into pages (an import, so Deno installs the package). */
const AXE_SOURCE = (axe as unknown as { source: string }).source;

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/** Runs axe on the page (or a part of it) and returns the violations of WCAG 2.1 A/AA rules. */
export async function axeViolations(page: Page, include?: string): Promise<AxeViolation[]> {
  const loaded = await page.evaluate(() => "axe" in globalThis);
  // The CSP forbids inline scripts: evaluate the source through the DevTools protocol instead of a <script>.
  if (!loaded) await page.evaluate(AXE_SOURCE);
  return await page.evaluate(async (include) => {
    // deno-lint-ignore no-explicit-any
    const axe = (globalThis as any).axe;
    const result = await axe.run(include ? { include: [include] } : document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
      resultTypes: ["violations"],
    });
    // deno-lint-ignore no-explicit-any
    return result.violations.map((v: any) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      // deno-lint-ignore no-explicit-any
      nodes: v.nodes.map((n: any) => ({ target: n.target, failureSummary: n.failureSummary })),
    }));
  }, include);
}

/**
 * Fails with a readable list when axe finds any violation. A page caught mid-animation (a toast or dialog fading in,
 * measured by colour contrast at half opacity on a loaded machine) is looked at once more a second later: what a
 * person would see stays, a frame in between does not.
 */
export async function assertAccessible(page: Page, where: string, include?: string): Promise<void> {
  let violations = await axeViolations(page, include);
  if (!violations.length) return;
  await page.waitForTimeout(1000);
  violations = await axeViolations(page, include);
  if (!violations.length) return;
  const text = violations.map((v) =>
    `- ${v.id} (${v.impact}): ${v.help}\n` +
    v.nodes.slice(0, 6).map((n) =>
      `    ${n.target.join(" ")}\n      ${(n.failureSummary ?? "").replace(/\n/g, "\n      ")}`
    )
      .join("\n")
  ).join("\n");
  throw new Error(`axe: ${violations.length} violation(s) on ${where}:\n${text}`);
}
