import { Component, type ReactNode } from "react";
import { connectionProblem, errorMessage } from "../lib/messages.ts";
import { ErrorPage } from "./ErrorPage.tsx";

interface Props {
  children: ReactNode;
  /** Clears the failed queries' error state (TanStack's QueryErrorResetBoundary) so a retry fetches again. */
  onReset?: () => void;
}

/**
 * Catches whatever a screen throws while rendering (including detail loads that fail) and shows ErrorPage. When the
 * browser was offline or the server unreachable, the page offers Retry.
 */
export class RouteErrorBoundary extends Component<Props, { error: unknown }> {
  override state: { error: unknown } = { error: null };

  static getDerivedStateFromError(error: unknown) {
    return { error: error ?? new Error("Unknown error") };
  }

  retry = () => {
    // A screen's code that could not be fetched stays failed in React.lazy: only a reload fetches it again.
    if (this.state.error instanceof TypeError) return location.reload();
    this.props.onReset?.();
    this.setState({ error: null });
  };

  override render() {
    const { error } = this.state;
    if (error) {
      return <ErrorPage message={errorMessage(error)} onRetry={connectionProblem(error) ? this.retry : undefined} />;
    }
    return this.props.children;
  }
}
