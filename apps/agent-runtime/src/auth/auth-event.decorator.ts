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
