import { Component, type ReactNode } from "react";
import { errorMessage } from "../lib/messages.ts";
import { ErrorPage } from "./ErrorPage.tsx";

interface Props {
  children: ReactNode;
}

/** Catches whatever a screen throws while rendering (including detail loads that fail) and shows ErrorPage. */
export class RouteErrorBoundary extends Component<Props, { error: unknown }> {
  override state: { error: unknown } = { error: null };

  static getDerivedStateFromError(error: unknown) {
    return { error: error ?? new Error("Unknown error") };
  }

  override render() {
    if (this.state.error) return <ErrorPage message={errorMessage(this.state.error)} />;
    return this.props.children;
  }
}
