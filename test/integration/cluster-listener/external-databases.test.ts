import { afterAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { withClient } from '#libs/database';
import { deploymentDatabaseName, deploymentRoleName } from '#libs/deployment-databases';
import { generateSealingKeys } from '#libs/sealed-box';
import { effectiveResources } from '../../../apps/cluster-listener/src/domain/resource-defaults.js';
import { ExternalDatabases } from '../../../apps/cluster-listener/src/listener/revision-databases.js';
import { resolveResourceSpec } from '#libs/resource-spec';
import { testServerUrl } from '../../support/test-server.js';

/**
 * A cluster listener given a PostgreSQL server (BERTH_LISTENER_DATABASE_URL) makes each
 * deployment a database and a login role of its own there, on the test server itself.
 */
describe("a cluster listener's deployment databases on a PostgreSQL server it was given", () => {
  const server = testServerUrl();
  const databases = new ExternalDatabases(server, 10, generateSealingKeys().privateKey);
  const deploymentId = randomUUID();
  const deployment = { id: deploymentId, name: 'support-agent', namespace: 'agents' };
  const resources = effectiveResources(resolveResourceSpec({ db_max_connections: 40 }));
  const refusedId = randomUUID();

  afterAll(async () => {
    await databases.dropped(deploymentId);
    await databases.dropped(refusedId);
  });

  it('gives the runtime a URL of its own role, owner of its own database, limited to db_max_connections', async () => {
    const database = await databases.databaseOf(deployment, resources);
    expect(database.kind).toBe('external');
    const url = database.kind === 'external' ? database.url : '';
    const seen = await withClient(url, async (client) => {
      const { rows } = await client.query<{
        who: string;
        db: string;
        owner: string;
        limit: number;
      }>(
        `select current_user as who, current_database() as db,
                pg_get_userbyid(d.datdba) as owner, r.rolconnlimit as limit
           from pg_database d, pg_roles r
          where d.datname = current_database() and r.rolname = current_user`,
      );
      return rows[0];
    });
    expect(seen).toEqual({
      who: deploymentRoleName(deploymentId),
      db: deploymentDatabaseName(deploymentId),
      owner: deploymentRoleName(deploymentId),
      limit: 40,
    });
  });

  it('gives the same URL again: a revision rendered again is the same objects', async () => {
    const first = await databases.databaseOf(deployment, resources);
    const again = await databases.databaseOf(deployment, resources);
    expect(again).toEqual(first);
  });

  it("refuses a deployment's role more connections than the server has room for, saying which field", async () => {
    const greedy = effectiveResources(resolveResourceSpec({ db_max_connections: 1_000_000 }));
    await expect(databases.databaseOf({ ...deployment, id: randomUUID() }, greedy)).rejects.toThrow(
      '(db_max_connections)',
    );
  });

  it('drops the database and the role with the deployment', async () => {
    await databases.dropped(deploymentId);
    const left = await withClient(server, async (client) => {
      const { rows } = await client.query<{ databases: number; roles: number }>(
        `select (select count(*) from pg_database where datname = $1)::int as databases,
                (select count(*) from pg_roles where rolname = $2)::int as roles`,
        [deploymentDatabaseName(deploymentId), deploymentRoleName(deploymentId)],
      );
      return rows[0];
    });
    expect(left).toEqual({ databases: 0, roles: 0 });
  });
});
