import { createHash, createHmac, randomBytes } from 'node:crypto';
import { dropDatabase, ensureDatabase } from '#libs/database';
import { DeploymentDatabaseRoles, deploymentDatabaseName } from '#libs/deployment-databases';
import type { RevisionDatabase } from '../domain/cluster-revision.js';
import { baseNameOf, objectNames } from '../domain/kube-names.js';
import type { EffectiveResources } from '../domain/resource-defaults.js';
import type { KubeCluster } from '../kube/kube-cluster.js';

export interface DeploymentRef {
  readonly id: string;
  readonly name: string;
  readonly namespace: string;
}

/** Where a deployment's runtime keeps its threads and runs. */
export interface RevisionDatabases {
  databaseOf(deployment: DeploymentRef, resources: EffectiveResources): Promise<RevisionDatabase>;
  /** After the deployment's pods are gone. */
  dropped(deploymentId: string): Promise<void>;
}

/**
 * A PostgreSQL in the cluster beside each deployment: its password made once and kept in the
 * deployment's credentials Secret, so that rendering a revision again gives the same objects.
 * Its data goes with the volume claims, which the tear-down deletes.
 */
export class InClusterDatabases implements RevisionDatabases {
  constructor(
    private readonly cluster: KubeCluster,
    private readonly image: string,
  ) {}

  async databaseOf(deployment: DeploymentRef): Promise<RevisionDatabase> {
    const names = objectNames(baseNameOf(deployment.name, deployment.id));
    const kept = await this.cluster.secretValues(deployment.namespace, names.databaseCredentials);
    const password = kept?.password ?? randomBytes(24).toString('base64url');
    const masterKey = kept?.['master-key'] ?? randomBytes(32).toString('base64');
    return { kind: 'in_cluster', password, image: this.image, masterKey };
  }

  async dropped(): Promise<void> {}
}

/**
 * A database and a login role of each deployment's own on a PostgreSQL server the listener was
 * given, as the local listener makes them on its server: the role owns its database and reaches
 * no other, with `db_max_connections` as its CONNECTION LIMIT, admitted only while the server has
 * room for it.
 */
export class ExternalDatabases implements RevisionDatabases {
  private readonly roles: DeploymentDatabaseRoles;
  /** Each deployment's master key is derived from it, never stored by the listener. */
  private readonly masterKeySeed: Buffer;

  constructor(
    private readonly serverUrl: string,
    reservedConnections: number,
    listenerPrivateKey: string,
  ) {
    const roleKey = createHash('sha256')
      .update(`berth-listener-database-roles\n${listenerPrivateKey}`)
      .digest();
    this.masterKeySeed = createHash('sha256')
      .update(`berth-listener-runtime-master-keys\n${listenerPrivateKey}`)
      .digest();
    this.roles = new DeploymentDatabaseRoles(serverUrl, roleKey, {
      perDeployment: 0,
      reservedForPlatform: reservedConnections,
    });
  }

  async databaseOf(
    deployment: DeploymentRef,
    resources: EffectiveResources,
  ): Promise<RevisionDatabase> {
    const database = deploymentDatabaseName(deployment.id);
    await ensureDatabase(this.serverUrl, database);
    const url = await this.roles.grant(deployment.id, database, {
      limit: resources.database.maxConnections,
      requestedBy: 'db_max_connections',
    });
    const masterKey = createHmac('sha256', this.masterKeySeed)
      .update(deployment.id)
      .digest('base64');
    return { kind: 'external', url, masterKey };
  }

  async dropped(deploymentId: string): Promise<void> {
    await dropDatabase(this.serverUrl, deploymentDatabaseName(deploymentId));
    await this.roles.drop(deploymentId);
  }
}
