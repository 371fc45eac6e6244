import { afterAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { dropDatabase, withClient } from '#libs/database';
import { openDatabaseServer } from '../../../apps/cli/src/server.js';
import { testServerUrl } from '../../support/test-server.js';

/** The grants of a database that PUBLIC holds (`=Tc/owner` in its ACL), as letters. */
async function publicGrants(serverUrl: string, name: string): Promise<string> {
  return withClient(serverUrl, async (client) => {
    const { rows } = await client.query<{ acl: string[] | null }>(
      'select datacl::text[] as acl from pg_database where datname = $1',
      [name],
    );
    // No ACL at all is PostgreSQL's default: CONNECT and TEMPORARY for PUBLIC.
    const acl = rows[0]?.acl;
    if (!acl) return 'Tc';
    return acl
      .filter((entry) => entry.startsWith('='))
      .map((entry) => entry.slice(1).split('/')[0] ?? '')
      .join('');
  });
}

describe("the databases berth up makes for the example's runtime", () => {
  const server = testServerUrl();
  const names: string[] = [];
  const unique = (label: string): string => {
    const name = `berth_test_up_${label}_${randomBytes(4).toString('hex')}`;
    names.push(name);
    return name;
  };

  afterAll(async () => {
    for (const name of names) await dropDatabase(server, name);
  });

  it('takes CONNECT and TEMPORARY from PUBLIC on a sealed database, as on deployments', async () => {
    const databases = await openDatabaseServer(server, '/nonexistent');
    const name = unique('example');
    const url = await databases.sealedDatabase(name);
    expect(new URL(url).pathname).toBe(`/${name}`);
    expect(await publicGrants(server, name)).toBe('');
    // Sealing again (a second `berth up`) is harmless, and its owner still connects.
    await databases.sealedDatabase(name);
    expect(await withClient(url, async (client) => (await client.query('select 1')).rowCount)).toBe(
      1,
    );
  });

  it('leaves a plain database as PostgreSQL makes it (the contrast the test above relies on)', async () => {
    const databases = await openDatabaseServer(server, '/nonexistent');
    const name = unique('plain');
    await databases.database(name);
    expect(await publicGrants(server, name)).toContain('c');
  });
});
