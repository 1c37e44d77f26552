import { useEffect } from "react";
import { PRODUCT_TITLE } from "./title.ts";

/** The browser tab's title for a page: its own name first, then the product. */
export function pageTitle(name: string): string {
  const short = name.replace(/\s*\([^()]*\)\s*$/, "").trim();
  return short ? `${short} · ${PRODUCT_TITLE}` : PRODUCT_TITLE;
}

const HEADING = "main h1";
const WAIT_MS = 15_000;

/** True when keyboard focus is nowhere the operator put it: the body, or a link of the menu just followed. */
function focusIsLost(): boolean {
  const active = document.activeElement;
  if (!active || active === document.body) return true;
  if (active.closest("[role=dialog], .p-dropdown-panel, .p-menu-overlay, .p-toast")) return false;
  return !active.closest("main");
}

/**
 * True from a page load that starts signed in until its first screen shows: that screen leaves focus where the
 * browser puts it at any page load (the document's start, with the skip link first). Moving focus to the heading is
 * for changes of page inside the app, and costs a phone a forced style and layout pass in the busiest frame.
 */
let pageLoad = false;
export function markPageLoad(): void {
  pageLoad = true;
}

/**
 * On every route change: the tab's title follows the page's heading (`<main> <h1>`, also when it changes, e.g. a
 * name loaded later), and keyboard focus moves to that heading once it shows, unless the page already put it
 * somewhere itself (the treatments search box) or the operator moved on meanwhile. Screen readers announce the new
 * page by its heading; the next Tab starts in the page, not in the menu.
 */
export function useRouteTitleAndFocus(location: string): void {
  useEffect(() => {
    let focused = pageLoad;
    pageLoad = false;
    const started = Date.now();
    const sync = () => {
      const heading = document.querySelector<HTMLElement>(HEADING);
      if (!heading) return;
      const title = pageTitle(heading.textContent ?? "");
      if (document.title !== title) document.title = title;
      if (!focused) {
        focused = true;
        // In the next frame, where the browser lays the page out anyway: focusing now would force a layout of its
        // own in the middle of the render.
        requestAnimationFrame(() => {
          if (!heading.isConnected || !focusIsLost()) return;
          heading.tabIndex = -1;
          heading.focus({ preventScroll: true });
        });
      }
    };
    const main = document.querySelector("main");
    const observer = new MutationObserver(() => {
      if (!focused && Date.now() - started > WAIT_MS) focused = true;
      sync();
    });
    if (main) observer.observe(main, { childList: true, subtree: true, characterData: true });
    sync();
    return () => observer.disconnect();
  }, [location]);
}
