import "./lib/zod_config.ts";
import { PrimeReactProvider } from "primereact/api";
import { ProgressBar } from "primereact/progressbar";
import { lazy, startTransition, StrictMode, Suspense } from "react";
import { createRoot } from "react-dom/client";
import LoginScreen from "./features/auth/LoginScreen.tsx";
import { useSession } from "./lib/session.ts";

const App = lazy(() => import("./app/App.tsx"));

/** Login: without a valid token the whole app is the sign-in form. */
function Root() {
  const { signedIn } = useSession();
  if (!signedIn) return <LoginScreen />;
  return (
    <Suspense fallback={<ProgressBar mode="indeterminate" style={{ height: "4px" }} aria-label="Loading" />}>
      <App />
    </Suspense>
  );
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
