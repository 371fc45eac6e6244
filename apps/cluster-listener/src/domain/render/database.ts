import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { Service } from 'kubernetes-models/v1/Service';
import { requirementsOf } from '../resource-defaults.js';
import { DATABASE_PORT } from './networking.js';
import { metadataOf, selectorLabels, type RenderContext } from './render-context.js';

const DATA_PATH = '/var/lib/postgresql/data';

/** The address of the deployment's own PostgreSQL, stable across its pod's restarts. */
export function databaseService(context: RenderContext): Service {
  return new Service({
    metadata: metadataOf(context, context.names.database, 'database'),
    spec: {
      clusterIP: 'None',
      selector: selectorLabels(context, 'database'),
      ports: [{ name: 'postgres', port: DATABASE_PORT, targetPort: 'postgres', protocol: 'TCP' }],
    },
  });
}

/** One PostgreSQL on a volume of `db_storage_gi`, with `db_max_connections` and the `db_*` resources. */
export function databaseStatefulSet(context: RenderContext, image: string): StatefulSet {
  const { names, resources } = context;
  const database = resources.database;
  const credential = (key: string) => ({
    valueFrom: { secretKeyRef: { name: names.databaseCredentials, key } },
  });
  const ready = {
    exec: { command: ['pg_isready', '-U', 'berth', '-d', 'berth'] },
    periodSeconds: 10,
  };
  return new StatefulSet({
    metadata: metadataOf(context, names.database, 'database'),
    spec: {
      serviceName: names.database,
      replicas: 1,
      selector: { matchLabels: selectorLabels(context, 'database') },
      template: {
        metadata: { labels: { ...metadataOf(context, names.database, 'database').labels } },
        spec: {
          automountServiceAccountToken: false,
          securityContext: { fsGroup: 999, seccompProfile: { type: 'RuntimeDefault' } },
          containers: [
            {
              name: 'postgres',
              image,
              args: ['-c', `max_connections=${database.maxConnections}`],
              ports: [{ name: 'postgres', containerPort: DATABASE_PORT, protocol: 'TCP' }],
              env: [
                { name: 'POSTGRES_USER', ...credential('username') },
                { name: 'POSTGRES_PASSWORD', ...credential('password') },
                { name: 'POSTGRES_DB', value: 'berth' },
                { name: 'PGDATA', value: `${DATA_PATH}/pgdata` },
              ],
              resources: requirementsOf(database),
              readinessProbe: ready,
              livenessProbe: { ...ready, initialDelaySeconds: 30, failureThreshold: 6 },
              volumeMounts: [{ name: 'data', mountPath: DATA_PATH }],
              securityContext: { allowPrivilegeEscalation: false },
            },
          ],
        },
      },
      volumeClaimTemplates: [
        {
          metadata: { name: 'data', labels: selectorLabels(context, 'database') },
          spec: {
            accessModes: ['ReadWriteOnce'],
            resources: { requests: { storage: `${database.storageGi}Gi` } },
          },
        },
      ],
    },
  });
}
