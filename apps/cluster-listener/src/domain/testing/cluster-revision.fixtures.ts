import { resolveResourceSpec, type ResourceSpec } from '#libs/resource-spec';
import type { ClusterRevision } from '../cluster-revision.js';

/** A revision with the defaults: no resource spec, no secrets, a database in the cluster. */
export function plainRevision(overrides: Partial<ClusterRevision> = {}): ClusterRevision {
  return {
    deploymentId: '0196f1a2-0000-7000-8000-000000000001',
    deploymentName: 'support-agent',
    revisionId: '0196f1a2-0000-7000-8000-0000000000a1',
    namespace: 'agents',
    image: 'registry.example/support-agent:1.4.2',
    resources: null,
    env: { BERTH_API_KEY_SHA256: 'ab'.repeat(32) },
    secrets: [],
    secretReferences: [],
    database: { kind: 'in_cluster', password: 'p@ss word', image: 'pgvector/pgvector:pg16' },
    ingress: {
      namespaceLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' },
      listenerNamespace: 'berth-system',
    },
    ...overrides,
  };
}

/** A stored resource spec with every field the interface names set. */
export function fullResourceSpec(): ResourceSpec {
  return resolveResourceSpec({
    min_scale: 2,
    max_scale: 6,
    cpu: 1.5,
    cpu_limit: 3,
    memory_mb: 2048,
    memory_limit_mb: 3072,
    queue_min_scale: 1,
    queue_max_scale: 10,
    queue_cpu: 2,
    queue_cpu_limit: 4,
    queue_memory_mb: 4096,
    queue_memory_limit_mb: 8192,
    cache_cpu: 1,
    cache_memory_mb: 512,
    labels: { team: 'support', 'app.kubernetes.io/name': 'not-berth' },
    annotations: { 'owner.example/contact': 'support@example.com' },
    service_account_name: 'support-agent-runtime',
    image_pull_secrets: [{ name: 'registry-credentials' }],
    volumes: [
      { name: 'prompts', configMap: { name: 'support-prompts' }, secret: null },
      { name: 'scratch', emptyDir: {} },
    ],
    volume_mounts: [{ name: 'prompts', mountPath: '/app/prompts', readOnly: true, subPath: null }],
    init_containers: [
      {
        name: 'migrate',
        image: 'registry.example/migrate:1',
        command: ['migrate', 'up'],
        args: null,
      },
    ],
    sidecars: [
      { name: 'log-shipper', image: 'registry.example/shipper:2', restartPolicy: 'Always' },
      {
        name: 'metrics-proxy',
        image: 'registry.example/proxy:1',
        env: [{ name: 'PORT', value: '9100' }],
      },
    ],
    db_cpu: 1,
    db_memory_mb: 2048,
    db_storage_gi: 50,
    db_max_connections: 300,
  });
}
