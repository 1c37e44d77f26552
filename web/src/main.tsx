import { PrimeReactProvider } from "primereact/api";
import { ProgressBar } from "primereact/progressbar";
import { lazy, startTransition, StrictMode, Suspense, useLayoutEffect } from "react";
import { createRoot } from "react-dom/client";
import { ShellFrame } from "./components/ShellFrame.tsx";
import LoginScreen from "./features/auth/LoginScreen.tsx";
import { markPageLoad } from "./lib/pageTitle.ts";
import { getToken } from "./lib/token.ts";
import { isTokenValid, useSession } from "./lib/session.ts";

const App = lazy(() => import("./app/App.tsx"));

/** Login: without a valid token the whole app is the sign-in form. */
function Root() {
  const { signedIn, ended } = useSession();
  // React adds its first screen beside the frame index.html painted (web/src/boot.ts): that frame leaves in the same
  // frame the first screen is painted in, so nothing blinks.
  useLayoutEffect(() => document.querySelector("#root > .boot-frame")?.remove(), []);
  if (!signedIn && !ended) return <LoginScreen />;
  return (
    <Suspense
      fallback={
        <ShellFrame>
          <ProgressBar mode="indeterminate" style={{ height: "4px" }} aria-label="Loading" />
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
  void import("./app/prefetch.ts").then((m) => m.prefetchFirstScreen(location.pathname, location.search));
}

// A transition: React renders the first screen in slices of a few milliseconds instead of one long task, so the page
// answers input while it starts (Lighthouse counts long tasks as blocking time).
const root = createRoot(document.getElementById("root")!);
startTransition(() =>
  root.render(
    <StrictMode>
      <PrimeReactProvider value={{ ripple: false }}>
        <Root />
      </PrimeReactProvider>
    </StrictMode>,
  )
);
