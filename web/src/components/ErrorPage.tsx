import { Button } from "primereact/button";

/** The page an unexpected route error shows; a Retry button when the error may pass (connection trouble). */
export function ErrorPage({ message, onRetry }: { message: string; onRetry?: () => void }) {
  return (
    <div className="error-page" role="alert">
      <h1>Error</h1>
      <p>Sorry, an unexpected error has occurred.</p>
      <p>
        <i>{message}</i>
      </p>
      {onRetry && <Button label="Retry" icon="pi pi-refresh" onClick={onRetry} />}
    </div>
  );
}
