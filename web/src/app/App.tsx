import { QueryClientProvider } from "@tanstack/react-query";
import { useEffect } from "react";
import { Notifications } from "../components/Notifications.tsx";
import { queryClient } from "../lib/query.ts";
import { AppRoutes } from "./routes.tsx";
import { Shell } from "./Shell.tsx";

/** The signed-in app, loaded lazily so the sign-in form stays small. */
export default function App() {
  // Signing out unmounts the app: forget every cached answer of that session.
  useEffect(() => () => queryClient.clear(), []);
  return (
    <QueryClientProvider client={queryClient}>
      <Notifications />
      <Shell>
        <AppRoutes />
      </Shell>
    </QueryClientProvider>
  );
}
