import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * Whether the server lets the URL's role in with a password that cannot be right: then it
 * trusts connections (pg_hba.conf `trust`), and any local process can log in as any role.
 */
export async function acceptsAnyPassword(url: string): Promise<boolean> {
  const probe = new URL(url);
  probe.password = `berth-probe-${randomBytes(12).toString('hex')}`;
  const client = new pg.Client({ connectionString: probe.toString() });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}
