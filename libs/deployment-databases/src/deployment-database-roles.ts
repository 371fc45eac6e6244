import { createHmac } from 'node:crypto';
import type pg from 'pg';
import { withClient, withDatabase } from '#libs/database';
import {
  admitConnections,
  ConnectionBudgetExceededError,
  type ServerConnections,
} from './connection-budget.js';

/** Held while a role's connections are admitted, so that two admissions never both take the last. */
const ADMISSION_LOCK = 0x6265_7263; // 'berc'

/** How many connections deployments' roles get, and how many the platform keeps for itself. */
export interface DeploymentConnectionLimits {
  /** Each deployment role's CONNECTION LIMIT. */
  readonly perDeployment: number;
  /** Kept off the deployments' share for the platform's own processes. */
  readonly reservedForPlatform: number;
}

const ROLE_PREFIX = 'berth_deployment_';

/** A deployment's own login role: it owns the deployment's database and reaches no other. */
export const deploymentRoleName = (deploymentId: string): string =>
  `${ROLE_PREFIX}${deploymentId.replace(/-/g, '')}`;

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

/** What the server allows, read from it (embedded or at DATABASE_URL alike). */
async function serverConnections(
  client: pg.ClientBase,
  reservedForPlatform: number,
): Promise<ServerConnections> {
  const { rows } = await client.query<{ max: number; reserved: number }>(
    `select current_setting('max_connections')::int as max,
            current_setting('superuser_reserved_connections')::int
              + coalesce(current_setting('reserved_connections', true)::int, 0) as reserved`,
  );
  return {
    max: rows[0]?.max ?? 0,
    reservedByServer: rows[0]?.reserved ?? 0,
    reservedForPlatform,
  };
}

/**
 * Gives each deployment's runtime a PostgreSQL login of its own instead of the platform's: a role
 * with a password derived from the platform's key, owner of the deployment's database (and of
 * what an earlier runtime made in it as the platform's role), with CONNECT taken from PUBLIC, and
 * a CONNECTION LIMIT. The limits of all the deployments' roles on the server add up to what the
 * server allows less what is kept for the platform: a deployment that would pass it is refused.
 */
export class DeploymentDatabaseRoles {
  constructor(
    private readonly serverUrl: string,
    private readonly key: Buffer,
    private readonly limits: DeploymentConnectionLimits,
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

  /**
   * Makes (or updates) the role and hands it the database; returns the runtime's URL. Throws
   * ConnectionBudgetExceededError, changing nothing, when the server has no room for its limit.
   */
  async grant(
    deploymentId: string,
    database: string,
    own?: { readonly limit: number; readonly requestedBy: string },
  ): Promise<string> {
    const role = deploymentRoleName(deploymentId);
    const password = this.passwordOf(deploymentId);
    const limit = own?.limit ?? this.limits.perDeployment;
    await withClient(this.serverUrl, async (client) => {
      const id = client.escapeIdentifier(role);
      const secret = client.escapeLiteral(password);
      await client.query('begin');
      try {
        await client.query('select pg_advisory_xact_lock($1)', [ADMISSION_LOCK]);
        const { rows } = await client.query<{ current: number | null; others: number }>(
          `select (select rolconnlimit from pg_roles where rolname = $1) as current,
                  coalesce(sum(case when rolconnlimit < 0 then $2 else rolconnlimit end), 0)::int
                    as others
             from pg_roles
            where starts_with(rolname, $3) and rolname <> $1 and rolcanlogin`,
          [role, limit, ROLE_PREFIX],
        );
        const current = rows[0]?.current ?? undefined;
        const admission = admitConnections(
          await serverConnections(client, this.limits.reservedForPlatform),
          {
            requested: limit,
            current,
            othersGranted: rows[0]?.others ?? 0,
            requestedBy: own?.requestedBy,
          },
        );
        if (!admission.admitted) throw new ConnectionBudgetExceededError(admission.reason);
        if (current === undefined) {
          // Made meanwhile by another platform on the same server: updated below all the same.
          await client.query('savepoint create_role');
          await client
            .query(`create role ${id} login connection limit ${limit} password ${secret}`)
            .catch(() => client.query('rollback to savepoint create_role'));
        }
        await client.query(
          `alter role ${id} with login nosuperuser nocreatedb nocreaterole noreplication ` +
            `nobypassrls connection limit ${limit} password ${secret}`,
        );
        const db = client.escapeIdentifier(database);
        await client.query(`alter database ${db} owner to ${id}`);
        await client.query(`revoke all on database ${db} from public`);
        await client.query('commit');
      } catch (error) {
        await client.query('rollback').catch(() => undefined);
        throw error;
      }
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
