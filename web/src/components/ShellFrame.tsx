import type { ReactNode } from "react";
import { PRODUCT_TITLE } from "../lib/title.ts";

/**
 * The signed-in console while its code loads: the shell's top bar and menu frame, laid out like the shell itself
 * (app/Shell.tsx) so nothing moves when the app replaces it. The build also renders it into index.html (with
 * `boot`), so a signed-in operator sees the console the moment the page's HTML and styles are in (web/src/boot.ts).
 */
export function ShellFrame({ boot, children }: { boot?: boolean; children?: ReactNode }) {
  return (
    <div className={boot ? "shell boot-frame" : "shell"}>
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
      <main className="content" id="main-content">{children}</main>
    </div>
  );
}
