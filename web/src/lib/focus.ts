/**
 * Focuses an element as soon as it is in the page and enabled. A control is disabled while its change saves, which
 * drops the browser's focus to the page body; this puts it back once the save is done. Gives up after ~2 s.
 */
export function focusWhenReady(target: () => HTMLElement | null | undefined, frames = 120): void {
  // Once focused, focus that drops to the page (the target re-rendered, a closing dialog's clean-up ran late) is put
  // back for a short while; focus the operator moved elsewhere is left alone.
  const keep = (until: number) => {
    if (performance.now() > until) return;
    const active = document.activeElement;
    if (!active || active === document.body) {
      const el = target();
      if (el?.isConnected) el.focus();
    }
    requestAnimationFrame(() => keep(until));
  };
  const attempt = (left: number) => {
    const el = target();
    const ready = el?.isConnected && !el.matches(":disabled") && !el.closest(".p-disabled");
    if (ready) {
      el.focus();
      requestAnimationFrame(() => keep(performance.now() + 1000));
      return;
    }
    if (left > 0) requestAnimationFrame(() => attempt(left - 1));
  };
  requestAnimationFrame(() => attempt(frames));
}

/** The focusable input of a PrimeReact Dropdown or Checkbox, found by its inputId. */
export const byId = (id: string) => () => document.getElementById(id);

/** Focuses the page's heading (made focusable for this), e.g. after the control that had focus went away. */
export function focusPageHeading(onlyIfLost = false): void {
  focusWhenReady(() => {
    if (onlyIfLost && document.activeElement && document.activeElement !== document.body) return null;
    const heading = document.querySelector<HTMLElement>("main h1");
    if (heading) heading.tabIndex = -1;
    return heading;
  });
}
