import "./lib/zod_config.ts";
import { PrimeReactProvider } from "primereact/api";
import { lazy, startTransition, StrictMode, Suspense } from "react";
import { createRoot } from "react-dom/client";
import { prefetchFirstScreen } from "./app/prefetch.ts";
import { ShellFrame } from "./components/ShellFrame.tsx";
import LoginScreen from "./features/auth/LoginScreen.tsx";
import { markPageLoad } from "./lib/pageTitle.ts";
import { getToken } from "./lib/token.ts";
import { isTokenValid, useSession } from "./lib/session.ts";

const App = lazy(() => import("./app/App.tsx"));

/** Signed in: the app's chunks (listed by the build in index.html) are fetched at once, not one import level a time. */
function preloadApp(): void {
  const modules = document.querySelector<HTMLMetaElement>('meta[name="app-modules"]')?.content.split(" ") ?? [];
  for (const href of modules.filter(Boolean)) {
    const link = document.createElement("link");
    link.rel = "modulepreload";
    link.href = href;
    document.head.append(link);
  }
}

/** Login: without a valid token the whole app is the sign-in form. */
function Root() {
  const { signedIn } = useSession();
  if (!signedIn) return <LoginScreen />;
  return (
    <Suspense fallback={<ShellFrame />}>
      <App />
    </Suspense>
  );
}

if (isTokenValid(getToken())) {
  markPageLoad();
  preloadApp();
  prefetchFirstScreen(location.pathname, location.search);
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
