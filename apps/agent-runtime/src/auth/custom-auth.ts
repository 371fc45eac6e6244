import { DomainError } from '#libs/domain';
/** The user a request acts for, as the application's `authenticate` described it. */
export interface AuthUser {
  readonly identity: string;
  readonly display_name: string;
  readonly permissions: readonly string[];
  readonly is_authenticated: boolean;
  readonly [key: string]: unknown;
}

/** Who is calling: a user of the application's own auth, or the platform (Berth's API key). */
export type AuthContext =
  | { readonly kind: 'user'; readonly user: AuthUser; readonly scopes: readonly string[] }
  | { readonly kind: 'platform' };

/**
 * The filters an authorization handler returns: per metadata key, a value to equal, or
 * `{ $eq: value }`, or `{ $contains: item or items }` for an array.
 */
export type AuthFilters = Readonly<Record<string, unknown>>;

/** A refusal with the status the application chose (its HTTPException), or 401/403. */
export class AuthRejection extends DomainError {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super('rejected', message);
  }
}

type Callback = (parameters: Record<string, unknown>) => unknown;

/** What an instance of the SDK's `Auth` class holds (`~handlerCache`). */
export interface AuthHandlers {
  authenticate?: (request: Request) => unknown;
  callbacks?: Record<string, Callback>;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The SDK's HTTPException (and anything shaped like it) becomes a rejection with its status. */
function rejectionOf(error: unknown): unknown {
  if (!isRecord(error) || typeof error.status !== 'number') return error;
  const headers = isRecord(error.headers) ? (error.headers as Record<string, string>) : {};
  const message =
    typeof error.message === 'string' && error.message ? error.message : 'Unauthorized';
  return new AuthRejection(error.status, message, headers);
}

function userOf(response: unknown): AuthUser {
  if (typeof response === 'string') {
    return { identity: response, display_name: response, permissions: [], is_authenticated: true };
  }
  if (isRecord(response) && typeof response.identity === 'string') {
    const permissions = Array.isArray(response.permissions)
      ? response.permissions.filter((p): p is string => typeof p === 'string')
      : [];
    return {
      ...response,
      identity: response.identity,
      permissions,
      display_name:
        typeof response.display_name === 'string' ? response.display_name : response.identity,
      is_authenticated:
        typeof response.is_authenticated === 'boolean' ? response.is_authenticated : true,
    };
  }
  throw new Error(
    'authenticate must return a string or an object with an "identity" string (the user)',
  );
}

/**
 * The application's custom authentication (`auth.path`: an instance of the SDK's `Auth`):
 * `authenticate` on every request, then the handler for each resource and action, which may
 * refuse, change the value (a create's metadata) or return filters on the resource's metadata.
 */
export class CustomAuth {
  constructor(private readonly handlers: AuthHandlers) {}

  static from(exported: unknown): CustomAuth | undefined {
    if (!isRecord(exported) || !isRecord(exported['~handlerCache'])) return undefined;
    return new CustomAuth(exported['~handlerCache']);
  }

  async authenticate(request: Request): Promise<AuthContext> {
    if (!this.handlers.authenticate) {
      return { kind: 'user', user: userOf('anonymous'), scopes: [] };
    }
    try {
      const user = userOf(await this.handlers.authenticate(request));
      return { kind: 'user', user, scopes: user.permissions };
    } catch (error) {
      throw rejectionOf(error);
    }
  }

  /**
   * Runs the most specific handler for `resource:action` (then `resource`, `*:action`, `*`).
   * Returns the filters to apply; the handler may have changed `value` in place.
   */
  async authorize(
    context: AuthContext,
    resource: string,
    action: string,
    value: Record<string, unknown>,
  ): Promise<AuthFilters | undefined> {
    if (context.kind === 'platform') return undefined;
    const callbacks = this.handlers.callbacks ?? {};
    const key = [`${resource}:${action}`, resource, `*:${action}`, '*'].find(
      (candidate) => typeof callbacks[candidate] === 'function',
    );
    if (key === undefined) return undefined;
    let result: unknown;
    try {
      result = await callbacks[key]?.({
        event: `${resource}:${action}`,
        resource,
        action,
        value,
        user: context.user,
        permissions: context.scopes,
      });
    } catch (error) {
      throw rejectionOf(error);
    }
    if (result === undefined || result === null || result === true) return undefined;
    if (result === false) throw new AuthRejection(403, 'Forbidden');
    if (!isRecord(result)) {
      throw new Error(
        `The auth handler for ${resource}:${action} returned ${typeof result}: expected filters, a boolean or nothing`,
      );
    }
    return result;
  }
}

/** Whether metadata passes the filters: `{key: v}` / `{key: {$eq: v}}` equal, `{$contains}` in an array. */
export function matchesFilters(
  metadata: Readonly<Record<string, unknown>>,
  filters: AuthFilters | undefined,
): boolean {
  if (!filters) return true;
  return Object.entries(filters).every(([key, condition]) => {
    const actual = metadata[key];
    if (isRecord(condition) && ('$eq' in condition || '$contains' in condition)) {
      if ('$eq' in condition) return JSON.stringify(actual) === JSON.stringify(condition.$eq);
      if (!Array.isArray(actual)) return false;
      const wanted = Array.isArray(condition.$contains)
        ? condition.$contains
        : [condition.$contains];
      return wanted.every((item) => actual.some((a) => JSON.stringify(a) === JSON.stringify(item)));
    }
    return JSON.stringify(actual) === JSON.stringify(condition);
  });
}

/**
 * The filters as one JSON containment (`metadata @> ...`), or undefined when an equality
 * cannot be written so (an object value, which containment would read as a subset).
 */
export function filtersAsContainment(filters: AuthFilters): Record<string, unknown> | undefined {
  const containment: Record<string, unknown> = {};
  for (const [key, condition] of Object.entries(filters)) {
    if (isRecord(condition) && '$contains' in condition) {
      containment[key] = Array.isArray(condition.$contains)
        ? condition.$contains
        : [condition.$contains];
      continue;
    }
    const value = isRecord(condition) && '$eq' in condition ? condition.$eq : condition;
    if (isRecord(value) || Array.isArray(value)) return undefined;
    containment[key] = value;
  }
  return containment;
}

/** The application's custom authentication, or null without `auth.path`. */
export const CUSTOM_AUTH = Symbol('CUSTOM_AUTH');
