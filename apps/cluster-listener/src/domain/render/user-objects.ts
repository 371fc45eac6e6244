/**
 * The spec's free-form Kubernetes fragments (volumes, containers, ...) as the API takes them: the
 * interface stores unset fields as null, which Kubernetes reads as a value.
 */
export function withoutNulls<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item: unknown) => withoutNulls(item)) as T;
  if (value === null || typeof value !== 'object') return value;
  const kept = Object.entries(value).filter(([, field]) => field !== null && field !== undefined);
  return Object.fromEntries(kept.map(([key, field]) => [key, withoutNulls(field)])) as T;
}
