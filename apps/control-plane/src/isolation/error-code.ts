/** The system error code (ENOENT, ELOOP, ...) of a failed file operation. */
export const errorCode = (error: unknown): string | undefined =>
  (error as { code?: unknown } | null)?.code?.toString();
