import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { AuthContext } from '../auth/custom-auth.js';

/** Who sent an MCP request, as the transport hands it to the server's handlers. */
export function authInfoOf(who: AuthContext | undefined): AuthInfo {
  const user = who?.kind === 'user' ? who : undefined;
  return {
    token: '',
    clientId: user ? user.user.identity : 'platform',
    scopes: user ? [...user.scopes] : [],
    extra: who ? { berthAuth: who } : {},
  };
}

/** The caller of a handler's request: undefined for the API key without custom auth. */
export function callerOf(info: AuthInfo | undefined): AuthContext | undefined {
  return info?.extra?.['berthAuth'] as AuthContext | undefined;
}

/** One name per caller: a session answers only the caller that opened it. */
export function ownerOf(who: AuthContext | undefined): string {
  return who?.kind === 'user' ? `user:${who.user.identity}` : 'platform';
}
