import { Button } from "primereact/button";
import { Message } from "primereact/message";
import { ProgressBar } from "primereact/progressbar";
import { useEffect, useRef } from "react";
import { ApiError } from "../../../shared/client.ts";
import { focusPageHeading } from "../lib/focus.ts";
import { CONNECTION_TEXT, connectionProblem, errorMessage } from "../lib/messages.ts";

export interface LoadStateProps {
  /** True while the data is being fetched (also in the background). */
  fetching: boolean;
  /** Set when loading failed. */
  error?: unknown;
  /** Offered as a Retry button with the error. */
  onRetry?: () => void;
}

const HINTS = {
  offline: "The data loads again when the connection is back.",
  unreachable: "Check that the console's server is running, then retry.",
} as const;

/** A read one's role may not make (403): asking again gets the same answer, so no Retry; the server says why. */
export function RoleRefusal({ error }: { error: ApiError }) {
  return <Message severity="info" className="role-refusal mt-2 w-full" text={error.msg} />;
}

/** Why loading failed, in words: offline, the server unreachable, or the server's own msg. */
export function LoadError({ error, onRetry, retrying }: { error: unknown; onRetry?: () => void; retrying?: boolean }) {
  if (error instanceof ApiError && error.status === 403) return <RoleRefusal error={error} />;
  const problem = connectionProblem(error);
  // A Retry that works removes this alert and its button: keyboard focus then goes to the page heading, not the body.
  const retried = useRef(false);
  useEffect(() => () => {
    if (retried.current) focusPageHeading(true);
  }, []);
  return (
    <Message
      severity="error"
      role="alert"
      className="load-error mt-2 w-full"
      content={
        <div className="load-error-body">
          <i className="pi pi-times-circle" aria-hidden="true" />
          <div style={{ flex: 1 }}>
            <strong>Error loading data.</strong>
            <div>{problem ? `${CONNECTION_TEXT[problem]} ${HINTS[problem]}` : errorMessage(error)}</div>
          </div>
          {onRetry && (
            // Not disabled while retrying: a disabled button would drop the keyboard focus.
            <Button
              label="Retry"
              icon={retrying ? "pi pi-spin pi-spinner" : "pi pi-refresh"}
              size="small"
              onClick={() => {
                retried.current = true;
                onRetry();
              }}
            />
          )}
        </div>
      }
    />
  );
}

/** A progress bar while fetching; on failure the alert 'Error loading data.' with the reason and Retry. */
export function LoadState({ fetching, error, onRetry }: LoadStateProps) {
  return (
    <div className="load-state">
      {fetching
        ? <ProgressBar mode="indeterminate" style={{ height: "4px" }} aria-label="Loading" />
        : <div style={{ height: "4px" }} />}
      {error ? <LoadError error={error} onRetry={onRetry} retrying={fetching} /> : null}
    </div>
  );
}
