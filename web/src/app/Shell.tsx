import { Button } from "primereact/button";
import { Menu } from "primereact/menu";
import type { MenuItem } from "primereact/menuitem";
import { lazy, type ReactNode, Suspense, useRef, useState } from "react";
import { Link, useLocation } from "wouter";
import { useRouteTitleAndFocus } from "../lib/pageTitle.ts";
import { useSession } from "../lib/session.ts";
import { PRODUCT_TITLE } from "../lib/title.ts";

// The dialog's code stays out of every page's first load: fetched when the account menu opens, shown on the first
// 'Change password' click.
const loadChangePassword = () => import("../features/auth/ChangePasswordDialog.tsx");
const ChangePasswordDialog = lazy(() => loadChangePassword().then((m) => ({ default: m.ChangePasswordDialog })));

const NAV: { href: string; label: string; icon: string }[] = [
  { href: "/", label: "Overview", icon: "pi pi-home" },
  { href: "/devices", label: "Devices", icon: "pi pi-tablet" },
  { href: "/treatments", label: "Treatments", icon: "pi pi-heart" },
  { href: "/product_types", label: "Product types", icon: "pi pi-box" },
  { href: "/device_firmwares", label: "Device firmwares", icon: "pi pi-microchip" },
];

function isActive(location: string, href: string) {
  return href === "/" ? location === "/" : location === href || location.startsWith(`${href}/`);
}

/** Shell: top bar with title and account menu, fixed left menu 220 px wide. */
export function Shell({ children }: { children: ReactNode }) {
  const { identity, signOut } = useSession();
  const [location] = useLocation();
  const menu = useRef<Menu>(null);
  const [changing, setChanging] = useState(false);
  // Once opened the dialog stays mounted, so closing it animates like any dialog.
  const [opened, setOpened] = useState(false);
  useRouteTitleAndFocus(location);

  const items: MenuItem[] = [
    { label: identity ?? "", icon: "pi pi-user", disabled: true },
    { separator: true },
    {
      label: "Change password",
      icon: "pi pi-key",
      command: () => {
        setOpened(true);
        setChanging(true);
      },
    },
    { label: "Logout", icon: "pi pi-sign-out", command: () => signOut() },
  ];

  return (
    <div className="shell">
      <a
        href="#main-content"
        className="skip-link"
        onClick={(e) => {
          // Focus the page's heading (or the main area) without a history entry for the fragment.
          e.preventDefault();
          const target = document.querySelector<HTMLElement>("main h1") ??
            document.getElementById("main-content");
          if (target) {
            target.tabIndex = -1;
            target.focus();
          }
        }}
      >
        Skip to content
      </a>
      <header className="topbar">
        <Link href="/" className="topbar-title">
          <i className="pi pi-bolt" aria-hidden="true" />
          <span>{PRODUCT_TITLE}</span>
        </Link>
        <Menu model={items} popup ref={menu} id="account-menu" style={{ width: "auto", minWidth: "15rem" }} />
        <Button
          className="topbar-account"
          text
          icon="pi pi-user"
          label={identity ?? undefined}
          aria-label={`Account ${identity ?? ""}`.trim()}
          aria-haspopup
          aria-controls="account-menu"
          onClick={(e) => {
            menu.current?.toggle(e);
            void loadChangePassword();
          }}
        />
      </header>
      <nav className="sidenav" aria-label="Main">
        <ul>
          {NAV.map((n) => (
            <li key={n.href}>
              <Link
                href={n.href}
                className={isActive(location, n.href) ? "active" : undefined}
                aria-current={isActive(location, n.href) ? "page" : undefined}
              >
                <i className={n.icon} aria-hidden="true" />
                <span>{n.label}</span>
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main className="content" id="main-content" tabIndex={-1}>{children}</main>
      {opened && (
        <Suspense fallback={null}>
          <ChangePasswordDialog visible={changing} onHide={() => setChanging(false)} identity={identity ?? ""} />
        </Suspense>
      )}
    </div>
  );
}
