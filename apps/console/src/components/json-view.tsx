/** A JSON value, readable and scrollable. */
export function JsonView({ value, label }: { readonly value: unknown; readonly label: string }) {
  return (
    <pre className="json" aria-label={label} tabIndex={0}>
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}
