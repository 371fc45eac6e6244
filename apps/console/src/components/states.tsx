import type { ReactNode } from 'react';
import { errorText } from '../api/api-error';

export function Loading({ what }: { readonly what: string }) {
  return (
    <p className="state state-loading" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function Empty({ children }: { readonly children: ReactNode }) {
  return <p className="state state-empty">{children}</p>;
}

/** A failure, with the API's `detail` as it was given. */
export function ErrorDetail({
  error,
  retry,
}: {
  readonly error: unknown;
  readonly retry?: () => void;
}) {
  return (
    <div className="state state-error" role="alert">
      <pre className="detail">{errorText(error)}</pre>
      {retry ? (
        <button type="button" onClick={retry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

/** A query's three states, and its data once it has it. */
export function QueryView<T>({
  query,
  what,
  children,
}: {
  readonly query: {
    data: T | undefined;
    error: unknown;
    isPending: boolean;
    refetch: () => unknown;
  };
  readonly what: string;
  readonly children: (data: T) => ReactNode;
}) {
  if (query.error) return <ErrorDetail error={query.error} retry={() => void query.refetch()} />;
  if (query.isPending || query.data === undefined) return <Loading what={what} />;
  return <>{children(query.data)}</>;
}
