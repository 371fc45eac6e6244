import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/** Where `npm run build` puts the web console (`apps/console`), beside the compiled apps. */
export const CONSOLE_DIRECTORY = fileURLToPath(new URL('../../../../console/', import.meta.url));

/** The console's files are public: they hold no data, and every call they make needs a key. */
export const CONSOLE_PUBLIC_PATHS = ['/', '/index.html', '/favicon.svg', '/assets/*'];

/**
 * The console loads nothing from elsewhere and may not be framed; it calls this origin, and the
 * runtime an operator opens by its URL.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "connect-src 'self' http: https:",
  "img-src 'self' data:",
  "style-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** Serves the built console at `/`; says so and serves nothing when it was not built. */
export async function serveConsole(
  app: FastifyInstance,
  directory = CONSOLE_DIRECTORY,
): Promise<boolean> {
  if (!existsSync(`${directory}/index.html`)) return false;
  await app.register(fastifyStatic, {
    root: directory,
    prefix: '/',
    wildcard: false,
    decorateReply: false,
    index: ['index.html'],
    setHeaders: (reply, path) => {
      reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
      reply.header('x-content-type-options', 'nosniff');
      // Hashed asset names never change content; the page itself is always asked again.
      reply.header(
        'cache-control',
        path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
    },
  });
  return true;
}
