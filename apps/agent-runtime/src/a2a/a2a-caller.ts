import type { ServerCallContext, User } from '@a2a-js/sdk/server';
import type { AuthContext } from '../auth/custom-auth.js';

/** Who calls an A2A agent, as the SDK carries it: the request's Berth identity inside. */
export class A2aCaller implements User {
  constructor(readonly auth: AuthContext | undefined) {}

  get isAuthenticated(): boolean {
    return this.auth !== undefined;
  }

  get userName(): string {
    if (!this.auth) return '';
    return this.auth.kind === 'platform' ? 'platform' : this.auth.user.identity;
  }
}

/** The Berth identity of the call (undefined without the application's auth or a key). */
export function authOf(context: ServerCallContext): AuthContext | undefined {
  const user = context.user;
  return user instanceof A2aCaller ? user.auth : undefined;
}
