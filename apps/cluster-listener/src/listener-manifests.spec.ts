import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { loadAllYaml } from '@kubernetes/client-node';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Role, type IRole } from 'kubernetes-models/rbac.authorization.k8s.io/v1/Role';
import { RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Secret } from 'kubernetes-models/v1/Secret';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import { listenerSettingsOf } from './listener.config.js';
import { API_VERSION_OF, TORN_DOWN_KINDS } from './domain/apply-plan.js';
import { LISTENER_POD_LABELS } from './domain/render/networking.js';

type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
};

const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  Namespace,
  ServiceAccount,
  Secret,
  Role,
  RoleBinding,
  Deployment,
};

const manifests = loadAllYaml(
  readFileSync(new URL('../../../deploy/kubernetes/listener.yaml', import.meta.url), 'utf8'),
) as Manifest[];
const find = (kind: string, namespace: string, name: string): unknown => {
  const found = manifests.find(
    (m) => m.kind === kind && m.metadata.namespace === namespace && m.metadata.name === name,
  );
  if (!found) throw new Error(`${kind} ${namespace}/${name} is not in listener.yaml`);
  return found;
};

/** `apps`, `deployments` for a kind the listener manages. */
const resourceOf = (kind: keyof typeof API_VERSION_OF) => {
  const version = API_VERSION_OF[kind];
  const group = version.includes('/') ? (version.split('/')[0] ?? '') : '';
  const lower = kind.toLowerCase();
  return { group, resource: lower.endsWith('y') ? `${lower.slice(0, -1)}ies` : `${lower}s` };
};

describe('deploy/kubernetes/listener.yaml', () => {
  it('holds only objects valid against the Kubernetes schema', () => {
    for (const manifest of manifests) {
      const Model = MODELS[manifest.kind];
      expect({ kind: manifest.kind, known: Model !== undefined }).toEqual({
        kind: manifest.kind,
        known: true,
      });
      expect(() => {
        new (Model as NonNullable<typeof Model>)(manifest as never).validate();
      }).not.toThrow();
    }
  });

  it('grants nothing cluster-wide', () => {
    expect(manifests.map((m) => m.kind)).not.toContain('ClusterRole');
    expect(manifests.map((m) => m.kind)).not.toContain('ClusterRoleBinding');
  });

  it('lets the listener do what a deployment needs in the namespace it manages, and read pods', () => {
    const rules = (find('Role', 'agents', 'berth-listener') as IRole).rules ?? [];
    const allows = (group: string, resource: string, verb: string) =>
      rules.some(
        (rule) =>
          rule.apiGroups?.includes(group) &&
          rule.resources?.includes(resource) &&
          rule.verbs.includes(verb) &&
          rule.resourceNames === undefined,
      );
    for (const kind of TORN_DOWN_KINDS) {
      const { group, resource } = resourceOf(kind);
      for (const verb of ['get', 'list', 'create', 'patch', 'delete']) {
        expect({ kind, verb, allowed: allows(group, resource, verb) }).toEqual({
          kind,
          verb,
          allowed: true,
        });
      }
    }
    expect(allows('', 'pods', 'list')).toBe(true);
    expect(allows('', 'pods', 'delete')).toBe(false);
  });

  it("runs a pod the runtimes' network policy admits, with settings berth listener takes", () => {
    const deployment = find('Deployment', 'berth-system', 'berth-listener') as IDeployment;
    const pod = deployment.spec?.template;
    expect(pod?.metadata?.labels).toMatchObject(LISTENER_POD_LABELS);
    expect(deployment.spec?.replicas).toBe(1);
    const container = pod?.spec?.containers[0];
    const env = Object.fromEntries(
      (container?.env ?? []).map(({ name, value }) => [name, value ?? 'from-a-secret']),
    );
    const args = container?.args ?? [];
    const flag = (name: string) => args[args.indexOf(`--${name}`) + 1];
    const settings = listenerSettingsOf(
      { name: flag('name'), namespace: [flag('namespace') ?? ''] },
      { ...env, BERTH_LISTENER_OWN_NAMESPACE: 'berth-system' },
      { podNamespace: 'berth-system', dataDir: '/tmp' },
    );
    expect(settings.namespaces).toEqual(['agents']);
    expect(settings.identity).toEqual({ kind: 'secret', name: 'berth-listener-identity' });
    const identityRole = find('Role', 'berth-system', 'berth-listener-identity') as IRole;
    expect(identityRole.rules?.[0]?.resourceNames).toEqual(['berth-listener-identity']);
  });
});
