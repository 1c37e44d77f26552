/** SPEC §2: the page an unexpected route error shows. */
export function ErrorPage({ message }: { message: string }) {
  return (
    <div className="error-page" role="alert">
      <h1>Error</h1>
      <p>Sorry, an unexpected error has occurred.</p>
      <p>
        <i>{message}</i>
      </p>
    </div>
  );
}
