/**
 * SQLSTATEs of a server that answers but gives no more connections: too many connections, for
 * the server or for the role (53300), and a configured limit exceeded (53400).
 */
const BUSY_STATES = new Set(['53300', '53400']);
const BUSY_MESSAGE =
  /too many clients already|too many connections for (role|database)|remaining connection slots are reserved/;

/**
 * Whether an error says the database refused a connection for want of room, rather than being
 * gone or a query failing: the caller may retry in a moment. Looks into wrapped errors (TypeORM's
 * `driverError`, `cause`, an AggregateError's `errors`).
 */
export function isDatabaseBusy(error: unknown, depth = 0): boolean {
  if (depth > 4 || error === null || typeof error !== 'object') return false;
  const { code, message, cause, driverError, errors } = error as {
    code?: unknown;
    message?: unknown;
    cause?: unknown;
    driverError?: unknown;
    errors?: unknown;
  };
  if (typeof code === 'string' && BUSY_STATES.has(code)) return true;
  if (typeof message === 'string' && BUSY_MESSAGE.test(message)) return true;
  if (Array.isArray(errors) && errors.some((inner) => isDatabaseBusy(inner, depth + 1))) {
    return true;
  }
  return isDatabaseBusy(driverError, depth + 1) || isDatabaseBusy(cause, depth + 1);
}
