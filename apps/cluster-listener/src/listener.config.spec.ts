import { describe, expect, it } from '@jest/globals';
import { listenerSettingsOf } from './listener.config.js';

const env = { BERTH_HOST_URL: 'https://berth.example/', BERTH_API_KEY: 'key-1' };
const outside = { podNamespace: undefined, dataDir: '/home/me/.berth' };
const inPod = { podNamespace: 'berth-system', dataDir: '/var/lib/berth' };

describe('listenerSettingsOf', () => {
  it('runs in its pod with the defaults: its own namespace, a Secret for its key, a PostgreSQL per deployment', () => {
    expect(listenerSettingsOf({}, env, inPod)).toEqual({
      controlPlaneUrl: 'https://berth.example',
      apiKey: 'key-1',
      name: 'cluster',
      namespaces: ['berth-system'],
      ownNamespace: 'berth-system',
      ingressNamespaceLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' },
      metricsNamespaceLabels: undefined,
      identity: { kind: 'secret', name: 'berth-listener-identity' },
      kubeconfig: undefined,
      database: { kind: 'in_cluster', image: 'pgvector/pgvector:pg16' },
      followEveryMs: 2000,
    });
  });

  it('keeps its key in a file of the data directory outside a pod', () => {
    expect(listenerSettingsOf({}, env, outside)).toMatchObject({
      ownNamespace: 'default',
      identity: { kind: 'file', path: '/home/me/.berth/listener-identity.json' },
    });
  });

  it('takes flags over the environment', () => {
    const settings = listenerSettingsOf(
      {
        name: 'prod',
        namespace: ['agents', 'staging', 'agents'],
        identity: 'secret:my-identity',
        'ingress-namespace': 'team=edge,tier=public',
        'metrics-namespace': 'kubernetes.io/metadata.name=monitoring',
        'database-image': 'postgres:17',
      },
      { ...env, BERTH_LISTENER_NAMESPACES: 'ignored', BERTH_LISTENER_NAME: 'ignored' },
      inPod,
    );
    expect(settings).toMatchObject({
      name: 'prod',
      namespaces: ['agents', 'staging'],
      identity: { kind: 'secret', name: 'my-identity' },
      ingressNamespaceLabels: { team: 'edge', tier: 'public' },
      metricsNamespaceLabels: { 'kubernetes.io/metadata.name': 'monitoring' },
      database: { kind: 'in_cluster', image: 'postgres:17' },
    });
  });

  it('reads the environment: namespaces, and an external PostgreSQL for the databases', () => {
    const settings = listenerSettingsOf(
      {},
      {
        ...env,
        BERTH_LISTENER_NAMESPACES: 'agents, staging',
        BERTH_LISTENER_DATABASE_URL: 'postgres://listener@db.example/postgres',
        BERTH_DB_RESERVED_CONNECTIONS: '20',
      },
      inPod,
    );
    expect(settings).toMatchObject({
      namespaces: ['agents', 'staging'],
      database: {
        kind: 'external',
        serverUrl: 'postgres://listener@db.example/postgres',
        reservedConnections: 20,
      },
    });
  });

  it.each([
    [{}, { BERTH_API_KEY: 'k' }, 'BERTH_HOST_URL must name the control plane'],
    [{}, { BERTH_HOST_URL: 'https://berth.example' }, 'BERTH_API_KEY must hold'],
    [{}, { ...env, BERTH_HOST_URL: 'ftp://x' }, 'BERTH_HOST_URL must be an http(s) URL'],
    [{ namespace: ['Agents'] }, env, '--namespace: "Agents" is not a Kubernetes name'],
    [{ identity: 'secret:' }, env, '--identity: "" is not a Kubernetes name'],
    [{ 'ingress-namespace': 'team' }, env, 'must be labels as key=value'],
  ])('refuses %j with %j', (flags, environment, message) => {
    expect(() => listenerSettingsOf(flags, environment, inPod)).toThrow(message);
  });
});
