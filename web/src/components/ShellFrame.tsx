import { ProgressBar } from "primereact/progressbar";
import { PRODUCT_TITLE } from "../lib/title.ts";

/**
 * The signed-in console while its code loads: the shell's top bar and menu frame, laid out like the shell itself
 * (app/Shell.tsx) so nothing moves when the app replaces it, with a progress bar where the page will be. The
 * operator sees the console at once instead of a blank page.
 */
export function ShellFrame() {
  return (
    <div className="shell">
      <header className="topbar">
        <span className="nav-toggle" aria-hidden="true">
          <i className="pi pi-bars" />
        </span>
        <a href="/" className="topbar-title">
          <i className="pi pi-bolt" aria-hidden="true" />
          <span>{PRODUCT_TITLE}</span>
        </a>
      </header>
      <nav className="sidenav" aria-label="Main" />
      <main className="content" id="main-content">
        <ProgressBar mode="indeterminate" style={{ height: "4px" }} aria-label="Loading" />
      </main>
    </div>
  );
}
