import { SetMetadata } from '@nestjs/common';

/**
 * What a route does, in the terms of the SDK's `Auth` handlers: the resource, the action, and
 * how the route uses the answer (`search` and `count` routes get the filters applied to their
 * query; routes on one thread or assistant check it against them).
 */
export interface AuthEventSpec {
  readonly resource: 'threads' | 'assistants' | 'crons';
  readonly action: 'create' | 'read' | 'update' | 'delete' | 'search' | 'create_run';
  readonly list?: 'search' | 'count';
}

export const AUTH_EVENT = Symbol('berth:auth-event');

export const AuthEvent = (
  event: `${AuthEventSpec['resource']}:${AuthEventSpec['action']}`,
  list?: AuthEventSpec['list'],
): MethodDecorator => {
  const [resource, action] = event.split(':') as [
    AuthEventSpec['resource'],
    AuthEventSpec['action'],
  ];
  return SetMetadata(AUTH_EVENT, { resource, action, ...(list ? { list } : {}) });
};

export const REFUSED_IN_STREAM = Symbol('berth:refused-in-stream');

/**
 * For a route that joins a stream: a refusal of the application's auth handler (a thread the
 * caller may not see) answers 200 with one SSE `error` event `{error, message: "<status>: ..."}`,
 * as the JS server's joins do, instead of an HTTP error.
 */
export const RefusedInStream = (): MethodDecorator => SetMetadata(REFUSED_IN_STREAM, true);
