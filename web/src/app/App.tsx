import { QueryClientProvider } from "@tanstack/react-query";
import { PrimeReactProvider } from "primereact/api";
import { useAtomValue } from "jotai";
import { lazy, Suspense, useEffect } from "react";
import { Notifications } from "../components/Notifications.tsx";
import { queryClient } from "../lib/query.ts";
import { sessionEndedAtom } from "../lib/sessionEnd.ts";
import { AppRoutes } from "./routes.tsx";
import { Shell } from "./Shell.tsx";

// Loaded when a session ends with the app open (a PrimeReact Dialog: kept out of the first screen's code).
const SessionDialog = lazy(() => import("./SessionDialog.tsx"));

/** The signed-in app, loaded lazily so the sign-in form stays small. */
export default function App() {
  // Signing out unmounts the app: forget every cached answer of that session.
  useEffect(() => () => queryClient.clear(), []);
  const ended = useAtomValue(sessionEndedAtom);
  return (
    <PrimeReactProvider value={{ ripple: false }}>
      <QueryClientProvider client={queryClient}>
        <Notifications />
        <Shell>
          <AppRoutes />
        </Shell>
        {ended && (
          <Suspense fallback={null}>
            <SessionDialog ended={ended} />
          </Suspense>
        )}
      </QueryClientProvider>
    </PrimeReactProvider>
  );
}
