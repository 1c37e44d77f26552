import { Message } from "primereact/message";
import { ProgressBar } from "primereact/progressbar";

export interface LoadStateProps {
  /** True while the data is being fetched (also in the background). */
  fetching: boolean;
  /** Set when loading failed. */
  error?: unknown;
}

/** SPEC: a progress bar while fetching; on failure an error alert 'Error loading data.'. */
export function LoadState({ fetching, error }: LoadStateProps) {
  return (
    <div className="load-state">
      {fetching
        ? <ProgressBar mode="indeterminate" style={{ height: "4px" }} aria-label="Loading" />
        : <div style={{ height: "4px" }} />}
      {error ? <Message severity="error" text="Error loading data." role="alert" className="mt-2 w-full" /> : null}
    </div>
  );
}
