/** A refusal from Berth, with the `detail` it gave. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(detail);
  }
}

type ValidationIssue = { loc?: unknown[]; msg?: string };

/** Berth's `detail`, as words: a string as it is, schema violations one per line. */
export function detailText(detail: unknown): string {
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    return (detail as ValidationIssue[])
      .map((issue) => `${(issue.loc ?? []).join('.')}: ${issue.msg ?? ''}`)
      .join('\n');
  }
  return JSON.stringify(detail);
}

/** What to show for any error: Berth's detail when it gave one. */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) return `${error.status}: ${error.detail}`;
  if (error instanceof Error) return error.message;
  return String(error);
}
