import type { IncomingHttpHeaders } from 'node:http';

/** Headers that carry credentials of the platform's: never handed to a graph. */
const WITHHELD = new Set(['x-api-key', 'x-tenant-id', 'x-service-key']);

/**
 * Headers whose names say they hold a credential: LangGraph copies `configurable` into every
 * checkpoint's metadata, so a header handed to the graph would be written to the event log.
 */
const CREDENTIAL_NAME = /key|token|secret|auth|passw|cookie|session|credential|signature/;

/**
 * The request headers a run's graph reads in `configurable`, as the JS server passes them: every
 * `x-*` header but the platform's credentials and those named as credentials, and `user-agent`.
 * Kept with the queued run only, not in the run's recorded config.
 */
export function configurableHeadersOf(headers: IncomingHttpHeaders): Record<string, string> {
  const passed: Record<string, string> = {};
  for (const [rawName, value] of Object.entries(headers)) {
    const name = rawName.toLowerCase();
    if (value === undefined || WITHHELD.has(name) || CREDENTIAL_NAME.test(name)) continue;
    if (!name.startsWith('x-') && name !== 'user-agent') continue;
    passed[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return passed;
}
