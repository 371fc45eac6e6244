import { createHmac } from 'node:crypto';
import { withClient, withDatabase } from '#libs/database';

/** A deployment's own login role: it owns the deployment's database and reaches no other. */
export const deploymentRoleName = (deploymentId: string): string =>
  `berth_deployment_${deploymentId.replace(/-/g, '')}`;

/** Every object of the deployment's database that the role does not own yet, as ALTER statements. */
const ADOPTION_SQL = `
  select format('alter table %I.%I owner to %I', n.nspname, c.relname, $1::text) as statement
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
   where c.relkind in ('r', 'p', 'v', 'm', 'f')
     and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg_toast%'
     and pg_get_userbyid(c.relowner) <> $1
  union all
  select format('alter sequence %I.%I owner to %I', n.nspname, c.relname, $1::text)
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
   where c.relkind = 'S' and pg_get_userbyid(c.relowner) <> $1
     and n.nspname not in ('pg_catalog', 'information_schema')
     and not exists (select 1 from pg_depend d where d.objid = c.oid and d.deptype in ('a', 'i'))
  union all
  select format('alter routine %s owner to %I', p.oid::regprocedure, $1::text)
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
   where n.nspname not in ('pg_catalog', 'information_schema') and pg_get_userbyid(p.proowner) <> $1
  union all
  select format('alter schema %I owner to %I', n.nspname, $1::text)
    from pg_namespace n
   where n.nspname not in ('pg_catalog', 'information_schema', 'public')
     and n.nspname not like 'pg_%' and pg_get_userbyid(n.nspowner) <> $1`;

/**
 * Gives each deployment's runtime a PostgreSQL login of its own instead of the platform's: a role
 * with a password derived from the platform's key, owner of the deployment's database (and of
 * what an earlier runtime made in it as the platform's role), with CONNECT taken from PUBLIC.
 */
export class DeploymentDatabaseRoles {
  constructor(
    private readonly serverUrl: string,
    private readonly key: Buffer,
  ) {}

  /** Whether the platform's role may create roles; without it, runtimes use the platform's. */
  async canCreateRoles(): Promise<boolean> {
    return withClient(this.serverUrl, async (client) => {
      const { rows } = await client.query<{ allowed: boolean }>(
        'select rolsuper or rolcreaterole as allowed from pg_roles where rolname = current_user',
      );
      return rows[0]?.allowed === true;
    });
  }

  passwordOf(deploymentId: string): string {
    return createHmac('sha256', this.key).update(deploymentId).digest('base64url');
  }

  /** Makes (or updates) the role and hands it the database; returns the runtime's URL. */
  async grant(deploymentId: string, database: string): Promise<string> {
    const role = deploymentRoleName(deploymentId);
    const password = this.passwordOf(deploymentId);
    await withClient(this.serverUrl, async (client) => {
      const id = client.escapeIdentifier(role);
      const secret = client.escapeLiteral(password);
      const { rowCount } = await client.query('select 1 from pg_roles where rolname = $1', [role]);
      if (!rowCount) {
        await client
          .query(`create role ${id} login password ${secret}`)
          .catch(async (error: unknown) => {
            // Created meanwhile by a concurrent launch: fine, it is updated below.
            const again = await client.query('select 1 from pg_roles where rolname = $1', [role]);
            if (!again.rowCount) throw error;
          });
      }
      await client.query(
        `alter role ${id} with login nosuperuser nocreatedb nocreaterole noreplication ` +
          `nobypassrls connection limit 64 password ${secret}`,
      );
      const db = client.escapeIdentifier(database);
      await client.query(`alter database ${db} owner to ${id}`);
      await client.query(`revoke all on database ${db} from public`);
    });
    await withClient(withDatabase(this.serverUrl, database), async (client) => {
      const { rows } = await client.query<{ statement: string }>(ADOPTION_SQL, [role]);
      for (const { statement } of rows) await client.query(statement);
    });
    const url = new URL(withDatabase(this.serverUrl, database));
    url.username = encodeURIComponent(role);
    url.password = encodeURIComponent(password);
    return url.toString();
  }

  /** After the database is dropped. */
  async drop(deploymentId: string): Promise<void> {
    await withClient(this.serverUrl, async (client) => {
      await client.query(
        `drop role if exists ${client.escapeIdentifier(deploymentRoleName(deploymentId))}`,
      );
    });
  }

  /** Takes CONNECT on the platform's own database from PUBLIC: runtimes' roles cannot log in. */
  async sealPlatformDatabase(platformUrl: string): Promise<void> {
    await withClient(platformUrl, async (client) => {
      await client.query(
        `do $$ begin execute format('revoke connect, temporary on database %I from public', current_database()); end $$`,
      );
    });
  }
}
