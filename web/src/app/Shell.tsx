import { Menu } from "primereact/menu";
import type { MenuItem } from "primereact/menuitem";
import { lazy, type ReactNode, Suspense, useEffect, useMemo, useRef, useState } from "react";
import { Link, useLocation } from "wouter";
import { LiteButton } from "../components/LiteButton.tsx";
import { useRouteTitleAndFocus } from "../lib/pageTitle.ts";
import { READ_ONLY_TEXT, useRole } from "../lib/role.ts";
import type { Role } from "../../../shared/schemas/operator.ts";
import { useSession } from "../lib/session.ts";
import { PRODUCT_TITLE } from "../lib/title.ts";
import { DeviceNavBadges } from "../features/devices/NavBadges.tsx";

// The dialog's code stays out of every page's first load: fetched when the account menu opens, shown on the first
// 'Change password' click.
const loadChangePassword = () => import("../features/auth/ChangePasswordDialog.tsx");
const ChangePasswordDialog = lazy(() => loadChangePassword().then((m) => ({ default: m.ChangePasswordDialog })));

/** `need`: the least role that may open the page (the server answers 403 below it). */
const NAV: { href: string; label: string; icon: string; need?: Role }[] = [
  { href: "/", label: "Overview", icon: "pi pi-home" },
  { href: "/devices", label: "Devices", icon: "pi pi-tablet" },
  { href: "/treatments", label: "Treatments", icon: "pi pi-heart" },
  { href: "/product_types", label: "Product types", icon: "pi pi-box" },
  { href: "/device_firmwares", label: "Device firmwares", icon: "pi pi-microchip" },
  { href: "/audit", label: "Audit log", icon: "pi pi-history", need: "operator" },
  { href: "/rollouts", label: "Rollouts", icon: "pi pi-send" },
  { href: "/api_tokens", label: "API tokens", icon: "pi pi-key" },
  { href: "/release_keys", label: "Release keys", icon: "pi pi-verified" },
  { href: "/operators", label: "Operators", icon: "pi pi-users", need: "admin" },
];

const MENU_STYLE = { width: "auto", minWidth: "15rem" };

function isActive(location: string, href: string) {
  return href === "/" ? location === "/" : location === href || location.startsWith(`${href}/`);
}

/** Shell: top bar with title and account menu, fixed left menu 220 px wide. */
export function Shell({ children }: { children: ReactNode }) {
  const { identity, signOut } = useSession();
  const { can, role } = useRole();
  const [location] = useLocation();
  const menu = useRef<Menu>(null);
  const [changing, setChanging] = useState(false);
  // Once opened the dialog stays mounted, so closing it animates like any dialog.
  const [opened, setOpened] = useState(false);
  useRouteTitleAndFocus(location);
  // Below ~900 px the menu is a drawer opened from the top bar; it closes on navigation and on Escape.
  const [navOpen, setNavOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  useEffect(() => setNavOpen(false), [location]);
  useEffect(() => {
    if (!navOpen) return;
    document.querySelector<HTMLElement>("#sidenav a")?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      setNavOpen(false);
      toggle.current?.focus();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [navOpen]);

  // Kept from render to render (as is the menu's style), so the memoized menu renders only when they change.
  const items: MenuItem[] = useMemo(() => [
    { label: role ? `${identity ?? ""} (${role})` : identity ?? "", icon: "pi pi-user", disabled: true },
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
  ], [identity, role, signOut]);

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
        <button
          ref={toggle}
          type="button"
          className="nav-toggle"
          aria-label="Menu"
          aria-expanded={navOpen}
          aria-controls="sidenav"
          onClick={() => setNavOpen((o) => !o)}
        >
          <i className={navOpen ? "pi pi-times" : "pi pi-bars"} aria-hidden="true" />
        </button>
        <Link href="/" className="topbar-title">
          <i className="pi pi-bolt" aria-hidden="true" />
          <span>{PRODUCT_TITLE}</span>
        </Link>
        <Menu model={items} popup ref={menu} id="account-menu" style={MENU_STYLE} />
        <LiteButton
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
      {navOpen && <div className="nav-backdrop" onClick={() => setNavOpen(false)} />}
      <nav id="sidenav" className={navOpen ? "sidenav open" : "sidenav"} aria-label="Main">
        <ul>
          {NAV.filter((n) => !n.need || can(n.need)).map((n) => (
            <li key={n.href}>
              <Link
                href={n.href}
                className={isActive(location, n.href) ? "active" : undefined}
                aria-current={isActive(location, n.href) ? "page" : undefined}
              >
                <i className={n.icon} aria-hidden="true" />
                <span>{n.label}</span>
              </Link>
              {n.href === "/devices" && <DeviceNavBadges />}
            </li>
          ))}
        </ul>
      </nav>
      <main className="content" id="main-content" tabIndex={-1}>
        {
          /* Why the page's change controls are off, in words on every page (disabled controls point here with
            aria-describedby="role-note"). */
        }
        {role !== undefined && !can("operator") && (
          <p id="role-note" className="role-note" role="note">
            <i className="pi pi-lock" aria-hidden="true" /> {READ_ONLY_TEXT}
          </p>
        )}
        {children}
      </main>
      {opened && (
        <Suspense fallback={null}>
          <ChangePasswordDialog visible={changing} onHide={() => setChanging(false)} identity={identity ?? ""} />
        </Suspense>
      )}
    </div>
  );
}
