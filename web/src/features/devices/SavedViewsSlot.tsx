import { LiteButton } from "../../components/LiteButton.tsx";
import { lazy, Suspense } from "react";
import { useAfterIdle } from "./columnChoice.ts";

/** The saved-views menu as it looks before it loads: same place and size, nothing to use yet. */
function Placeholder() {
  return (
    <div className="saved-views" aria-busy="true">
      <div className="filter-field">
        <label htmlFor="saved-view">Saved view</label>
        <select id="saved-view" className="p-inputtext p-component" disabled value="">
          <option value="">—</option>
        </select>
      </div>
      <LiteButton label="Save view" icon="pi pi-bookmark" size="small" text disabled />
    </div>
  );
}

// Offline (or the server gone) when the menu's code is asked for: the disabled menu stays, instead of the failed import
// reaching the route's error boundary and taking the list with it.
const SavedViews = lazy(() => import("./SavedViews.tsx").catch(() => ({ default: Placeholder })));

/**
 * Where the saved-views menu goes on the devices list. Its code and the views themselves load once the browser is
 * idle after the list's first load (measured: `git show 920e3a2:docs/PERFORMANCE.md`, "Saved views"), so the page's first load does not grow.
 */
export function SavedViewsSlot(props: { who: string | null; current: string; onOpen: (query: string) => void }) {
  const idle = useAfterIdle();
  if (!idle) return <Placeholder />;
  return (
    <Suspense fallback={<Placeholder />}>
      <SavedViews {...props} />
    </Suspense>
  );
}
