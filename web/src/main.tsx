import { lazy, startTransition, StrictMode, Suspense, useLayoutEffect } from "react";
import { createRoot } from "react-dom/client";
import { ShellFrame } from "./components/ShellFrame.tsx";
import { markPageLoad } from "./lib/pageTitle.ts";
import { getToken } from "./lib/token.ts";
import { isTokenValid, useSession } from "./lib/session.ts";

/** Resolves in a task of its own, after what is already queued (input, a paint). */
const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * Imports the parts one task each, then the last: evaluating a module graph is one task, and the signed-in app's
 * graph at once was the longest task of a phone's start (issue 34). boot.ts has preloaded the chunks already, so each
 * step only evaluates what the previous ones did not.
 */
async function inSteps<T>(parts: (() => Promise<unknown>)[], last: () => Promise<T>): Promise<T> {
  for (const part of parts) {
    await part();
    await nextTask();
  }
  return last();
}

// zod's classes, then the schemas, then the API client and the route table.
const CLIENT_PARTS = [() => import("./app/parts/zod.ts"), () => import("./app/parts/schemas.ts")];
const App = lazy(() =>
  inSteps([
    ...CLIENT_PARTS,
    () => import("./lib/api.ts"),
    () => import("./app/parts/primereact.ts"),
    () => import("./app/parts/query.ts"),
    // The first screen of most visits (statically part of the app's routes).
    () => import("./features/devices/DevicesScreen.tsx"),
  ], () => import("./app/App.tsx"))
);
// Lazy too (boot.ts preloads its chunks when signed out): a signed-in start does not evaluate the form and PrimeReact's
// core in its first task, and the sign-in page evaluates them in a task after React's.
const LoginScreen = lazy(() => import("./features/auth/LoginScreen.tsx"));

/** The start-up's progress bar, without PrimeReact (its code is not part of main). */
const Loading = () => <div className="start-progress" role="progressbar" aria-label="Loading" />;

/** Login: without a valid token the whole app is the sign-in form. */
function Root() {
  const { signedIn, ended } = useSession();
  // React adds its first screen beside the frame index.html painted (web/src/boot.ts): that frame leaves in the same
  // frame the first screen is painted in, so nothing blinks.
  useLayoutEffect(() => document.querySelector("#root > .boot-frame")?.remove(), []);
  if (!signedIn && !ended) {
    return (
      <Suspense fallback={<Loading />}>
        <LoginScreen />
      </Suspense>
    );
  }
  return (
    <Suspense
      fallback={
        <ShellFrame>
          <Loading />
        </ShellFrame>
      }
    >
      <App />
    </Suspense>
  );
}

if (isTokenValid(getToken())) {
  markPageLoad();
  // Its own chunk (the API client, zod and the route table, preloaded with the app's): evaluated in a task of its own
  // rather than in the start-up's one long task, and not part of the sign-in page's code.
  void inSteps(CLIENT_PARTS, () => import("./app/prefetch.ts")).then((m) =>
    m.prefetchFirstScreen(location.pathname, location.search)
  );
}

// A transition: React renders the first screen in slices of a few milliseconds instead of one long task, so the page
// answers input while it starts (Lighthouse counts long tasks as blocking time).
const root = createRoot(document.getElementById("root")!);
startTransition(() =>
  root.render(
    <StrictMode>
      <Root />
    </StrictMode>,
  )
);
