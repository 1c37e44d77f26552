/**
 * The first script of the page, tiny and render-blocking (a classic script: it runs before the body is parsed).
 *
 * Signed in (a stored token not yet expired): it marks <html> `signed-in`, so the console's frame that index.html
 * holds (components/ShellFrame.tsx, rendered at build) is painted as soon as the HTML and the styles are in, and it
 * asks for the app's code only once that frame is painted: on a slow link the styles do not share it with 200 KB of
 * scripts. The app's own chunks (`app-modules`) come in the same wave as the start-up ones, not one import level
 * after the other. Signed out, the frame stays hidden and the code is asked for at once, with the sign-in form's chunks.
 */
import { jwtPayload, TOKEN_KEY } from "./lib/jwt.ts";

function modules(name: string): string[] {
  return document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content.split(" ").filter(Boolean) ?? [];
}

/**
 * Links in a few insertions (each one costs the browser a pass over the page), at most BATCH per task: inserting a
 * modulepreload starts its fetch, about half a millisecond each (2 ms under a 4× slowdown on a loaded machine), and 40
 * at once were one long task, ten per task still over 50 ms under load (issue 34).
 */
const BATCH = 5;
function preload(hrefs: string[]): void {
  const links = document.createDocumentFragment();
  for (const href of hrefs.slice(0, BATCH)) {
    const link = document.createElement("link");
    link.rel = "modulepreload";
    link.href = href;
    links.append(link);
  }
  document.head.append(links);
  if (hrefs.length > BATCH) setTimeout(() => preload(hrefs.slice(BATCH)));
}

function start(signedIn: boolean): void {
  const [main, ...chunks] = modules("start-modules");
  preload([main, ...chunks, ...modules(signedIn ? "app-modules" : "login-modules")]);
  // Run once the body is parsed (main renders into #root), as a module script written in the page would.
  const run = () => {
    const script = document.createElement("script");
    script.type = "module";
    script.src = main;
    document.head.append(script);
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", run, { once: true });
  else run();
}

function hasSession(): boolean {
  try {
    const exp = (jwtPayload(localStorage.getItem(TOKEN_KEY)) as { exp?: unknown } | null)?.exp;
    return typeof exp === "number" && exp * 1000 > Date.now();
  } catch {
    return false; // no storage: signed out, as the app will find too
  }
}

if (hasSession()) {
  document.documentElement.classList.add("signed-in");
  // The frame's first paint, then the code (a timer queued from the frame's callback runs after its paint).
  requestAnimationFrame(() => setTimeout(() => start(true)));
} else {
  start(false);
}
