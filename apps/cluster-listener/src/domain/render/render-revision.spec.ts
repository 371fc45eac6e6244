import { describe, expect, it } from '@jest/globals';
import { resolveResourceSpec } from '#libs/resource-spec';
import { baseNameOf } from '../kube-names.js';
import { fullResourceSpec, plainRevision } from '../testing/cluster-revision.fixtures.js';
import { containerOf, envOf, podOf, renderedAs } from '../testing/rendered-objects.js';
import { renderProblems } from '../validate-rendered.js';
import { renderRevision } from './render-revision.js';

describe('renderRevision, with no resource spec', () => {
  const revision = plainRevision();
  const rendered = renderRevision(revision);
  const base = baseNameOf(revision.deploymentName, revision.deploymentId);
  const apiPod = podOf(renderedAs(rendered, 'Deployment', base));
  const runtime = containerOf(apiPod, 'runtime');

  it('renders the objects of a deployment in the order they are applied, each valid', () => {
    expect(rendered.map((object) => `${object.kind}/${object.metadata?.name}`)).toEqual([
      `Secret/${base}-db-credentials`,
      `Service/${base}-db`,
      `StatefulSet/${base}-db`,
      `NetworkPolicy/${base}-db`,
      `Deployment/${base}`,
      `Deployment/${base}-queue`,
      `Service/${base}`,
      `NetworkPolicy/${base}`,
      `PodDisruptionBudget/${base}`,
    ]);
    expect(renderProblems(rendered)).toEqual([]);
    expect(rendered.every((object) => object.metadata?.namespace === 'agents')).toBe(true);
  });

  it('gives one API server and one worker of 1 CPU and 1024 MB, limits twice that, and no autoscaler', () => {
    expect(renderedAs(rendered, 'Deployment', base).spec?.replicas).toBe(1);
    expect(runtime.resources).toEqual({
      requests: { cpu: '1', memory: '1024Mi' },
      limits: { cpu: '2', memory: '2048Mi' },
    });
    expect(renderedAs(rendered, 'Deployment', `${base}-queue`).spec?.replicas).toBe(1);
    expect(rendered.some((object) => object.kind === 'HorizontalPodAutoscaler')).toBe(false);
  });

  it('replaces API servers one at a time, a new one ready on /ok before an old one stops', () => {
    expect(renderedAs(rendered, 'Deployment', base).spec?.strategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: 0, maxSurge: 1 },
    });
    expect(runtime.readinessProbe?.httpGet).toEqual({ path: '/ok', port: 'http' });
    expect(runtime.livenessProbe?.httpGet).toEqual({ path: '/ok', port: 'http' });
  });

  it("admits the ingress controller's namespace and the listener's pods only, on the runtime's port", () => {
    const policy = renderedAs(rendered, 'NetworkPolicy', base).spec;
    expect(policy?.policyTypes).toEqual(['Ingress']);
    expect(policy?.ingress).toEqual([
      {
        from: [
          {
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } },
          },
          {
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'berth-system' } },
            podSelector: { matchLabels: { 'app.kubernetes.io/name': 'berth-listener' } },
          },
        ],
        ports: [{ protocol: 'TCP', port: 8000 }],
      },
    ]);
  });

  it('admits the namespace Prometheus scrapes from too, when the listener names one', () => {
    const scraped = renderRevision(
      plainRevision({
        ingress: { ...revision.ingress, metricsNamespaceLabels: { name: 'monitoring' } },
      }),
    );
    const from = renderedAs(scraped, 'NetworkPolicy', base).spec?.ingress?.[0]?.from;
    expect(from?.at(-1)).toEqual({ namespaceSelector: { matchLabels: { name: 'monitoring' } } });
    expect(from).toHaveLength(3);
  });

  it("labels the database's volume claims with the deployment, so that its tear-down finds them", () => {
    const claims = renderedAs(rendered, 'StatefulSet', `${base}-db`).spec?.volumeClaimTemplates;
    expect(claims?.map((claim) => claim.metadata?.labels)).toEqual([
      { 'berth.dev/deployment-id': revision.deploymentId, 'berth.dev/component': 'database' },
    ]);
  });

  it('runs the API servers without workers and the queue without the API', () => {
    const api = envOf(runtime);
    const queuePod = podOf(renderedAs(rendered, 'Deployment', `${base}-queue`));
    const queue = envOf(containerOf(queuePod, 'runtime'));
    expect(api.BERTH_RUN_WORKERS?.value).toBe('false');
    expect(api.BERTH_SERVE_API).toBeUndefined();
    expect(queue.BERTH_RUN_WORKERS?.value).toBe('true');
    expect(queue.BERTH_SERVE_API?.value).toBe('false');
  });

  it('gives the runtime no service account token, no root, and a read-only root filesystem', () => {
    expect(apiPod.automountServiceAccountToken).toBe(false);
    expect(runtime.securityContext).toMatchObject({
      runAsNonRoot: true,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
    });
  });

  it('keeps the database password in its Secret and hands the runtime the URL by reference', () => {
    expect(renderedAs(rendered, 'Secret', `${base}-db-credentials`).stringData).toEqual({
      url: `postgres://berth:p%40ss%20word@${base}-db:5432/berth`,
      username: 'berth',
      password: 'p@ss word',
    });
    expect(envOf(runtime).DATABASE_URL?.valueFrom).toEqual({
      secretKeyRef: { name: `${base}-db-credentials`, key: 'url' },
    });
    expect(JSON.stringify(renderedAs(rendered, 'Deployment', base))).not.toContain('p@ss word');
  });

  it("sizes every runtime pod's connections to fit the database with all pods up", () => {
    const queuePod = podOf(renderedAs(rendered, 'Deployment', `${base}-queue`));
    expect(envOf(runtime).BERTH_DATABASE_CONNECTIONS?.value).toBe('24');
    expect(envOf(containerOf(queuePod, 'runtime')).BERTH_DATABASE_CONNECTIONS?.value).toBe('24');
  });

  it('runs a PostgreSQL of 0.5 CPU, 1024 MB, 10 GiB and 100 connections', () => {
    const database = renderedAs(rendered, 'StatefulSet', `${base}-db`);
    const postgres = containerOf(podOf(database), 'postgres');
    expect(postgres.image).toBe('pgvector/pgvector:pg16');
    expect(postgres.args).toEqual(['-c', 'max_connections=100']);
    expect(postgres.resources).toEqual({
      requests: { cpu: '0.5', memory: '1024Mi' },
      limits: { cpu: '1', memory: '2048Mi' },
    });
    const claims = database.spec?.volumeClaimTemplates ?? [];
    expect(claims[0]?.spec?.resources?.requests).toEqual({ storage: '10Gi' });
  });
});

describe('renderRevision, with every resource spec field', () => {
  const revision = plainRevision({
    resources: fullResourceSpec(),
    secrets: [{ name: 'OPENAI_API_KEY', value: 'sk-not-real' }],
    secretReferences: [{ name: 'SEARCH_KEY', secret_name: 'search', secret_key: 'key' }],
  });
  const rendered = renderRevision(revision);
  const base = baseNameOf(revision.deploymentName, revision.deploymentId);
  const apiPod = podOf(renderedAs(rendered, 'Deployment', base));
  const runtime = containerOf(apiPod, 'runtime');

  it('renders valid objects', () => {
    expect(renderProblems(rendered)).toEqual([]);
  });

  it('scales the API servers on CPU and the workers on the queue depth, from min to max', () => {
    const api = renderedAs(rendered, 'HorizontalPodAutoscaler', base).spec;
    expect(api).toMatchObject({ minReplicas: 2, maxReplicas: 6 });
    expect(api?.metrics?.[0]?.resource?.name).toBe('cpu');
    const queue = renderedAs(rendered, 'HorizontalPodAutoscaler', `${base}-queue`).spec;
    expect(queue).toMatchObject({ minReplicas: 1, maxReplicas: 10 });
    expect(queue?.metrics?.[0]?.external).toEqual({
      metric: {
        name: 'berth_run_queue_depth',
        selector: { matchLabels: { berth_dev_deployment_id: revision.deploymentId } },
      },
      target: { type: 'AverageValue', averageValue: '10' },
    });
    // The autoscalers own the replica counts.
    expect(renderedAs(rendered, 'Deployment', base).spec?.replicas).toBeUndefined();
  });

  it('gives each role its own requests and limits', () => {
    expect(runtime.resources).toEqual({
      requests: { cpu: '1.5', memory: '2048Mi' },
      limits: { cpu: '3', memory: '3072Mi' },
    });
    const queuePod = podOf(renderedAs(rendered, 'Deployment', `${base}-queue`));
    expect(containerOf(queuePod, 'runtime').resources).toEqual({
      requests: { cpu: '2', memory: '4096Mi' },
      limits: { cpu: '4', memory: '8192Mi' },
    });
  });

  it("puts labels and annotations on every object, under Berth's own labels", () => {
    for (const object of rendered) {
      const { metadata } = object.toJSON() as { metadata: { labels: object; annotations: object } };
      expect(metadata.labels).toMatchObject({
        team: 'support',
        'app.kubernetes.io/name': 'berth-runtime',
      });
      expect(metadata.annotations).toMatchObject({
        'owner.example/contact': 'support@example.com',
      });
    }
  });

  it('adds the service account, pull secrets, volumes, mounts, init containers and sidecars to the pod', () => {
    expect(apiPod.serviceAccountName).toBe('support-agent-runtime');
    expect(apiPod.automountServiceAccountToken).toBeUndefined();
    expect(apiPod.imagePullSecrets).toEqual([{ name: 'registry-credentials' }]);
    expect(apiPod.volumes).toContainEqual({
      name: 'prompts',
      configMap: { name: 'support-prompts' },
    });
    expect(runtime.volumeMounts).toContainEqual({
      name: 'prompts',
      mountPath: '/app/prompts',
      readOnly: true,
    });
    const initContainers = apiPod.initContainers ?? [];
    expect(initContainers.map((container) => container.name)).toEqual(['migrate', 'log-shipper']);
    expect(initContainers[1]?.restartPolicy).toBe('Always');
    expect(apiPod.containers.map((container) => container.name)).toEqual([
      'runtime',
      'metrics-proxy',
    ]);
  });

  it('hands the secrets over in a Secret, and the references from their own Secrets', () => {
    expect(renderedAs(rendered, 'Secret', `${base}-secrets`).stringData).toEqual({
      OPENAI_API_KEY: 'sk-not-real',
    });
    expect(runtime.envFrom).toEqual([{ secretRef: { name: `${base}-secrets` } }]);
    expect(envOf(runtime).SEARCH_KEY?.valueFrom).toEqual({
      secretKeyRef: { name: 'search', key: 'key' },
    });
  });

  it('sizes the database from the db_* fields', () => {
    const database = renderedAs(rendered, 'StatefulSet', `${base}-db`);
    const postgres = containerOf(podOf(database), 'postgres');
    expect(postgres.args).toEqual(['-c', 'max_connections=300']);
    expect(postgres.resources?.limits).toEqual({ cpu: '2', memory: '4096Mi' });
    const claims = database.spec?.volumeClaimTemplates ?? [];
    expect(claims[0]?.spec?.resources?.requests).toEqual({ storage: '50Gi' });
  });

  it('renders nothing for the cache_* fields', () => {
    const text = JSON.stringify(rendered.map((object) => object.toJSON()));
    expect(text).not.toMatch(/cache|redis/i);
  });
});

describe('renderRevision, details', () => {
  it('uses a database the listener was given instead of running one', () => {
    const url = 'postgres://berth_x:secret@db.example:5432/berth_x';
    const revision = plainRevision({ database: { kind: 'external', url } });
    const rendered = renderRevision(revision);
    const base = baseNameOf(revision.deploymentName, revision.deploymentId);
    expect(rendered.some((object) => object.kind === 'StatefulSet')).toBe(false);
    expect(renderedAs(rendered, 'Secret', `${base}-db-credentials`).stringData).toEqual({ url });
    expect(renderProblems(rendered)).toEqual([]);
  });

  it('makes DNS-1123 names of any deployment name, distinct per deployment', () => {
    const weird =
      'Ünïcode_Agent!! with a name far longer than any Kubernetes label could ever hold';
    const one = renderRevision(plainRevision({ deploymentName: weird }));
    const other = renderRevision(
      plainRevision({
        deploymentName: weird,
        deploymentId: '0196f1a2-0000-7000-8000-000000000002',
      }),
    );
    expect(renderProblems([...one, ...other])).toEqual([]);
    expect(one[0]?.metadata?.name).not.toBe(other[0]?.metadata?.name);
  });

  it('keeps a scale of zero as zero replicas with no autoscaler', () => {
    const revision = plainRevision({
      resources: resolveResourceSpec({ min_scale: 0, max_scale: 0 }),
    });
    const base = baseNameOf(revision.deploymentName, revision.deploymentId);
    const rendered = renderRevision(revision);
    expect(renderedAs(rendered, 'Deployment', base).spec?.replicas).toBe(0);
    expect(rendered.some((object) => object.kind === 'HorizontalPodAutoscaler')).toBe(false);
  });

  it('reports what the schema refuses and the names it does not check', () => {
    const resources = resolveResourceSpec({
      volumes: [{ name: 'Bad_Volume', emptyDir: {} }],
      sidecars: [{ name: 'side', image: 'x', command: 'not-a-list' as unknown as string[] }],
    });
    const problems = renderProblems(renderRevision(plainRevision({ resources })));
    const text = problems.map((problem) => problem.problem).join('\n');
    expect(text).toMatch(/volume name "Bad_Volume" is not a DNS-1123 label/);
    expect(text).toMatch(/command must be array/);
  });
});
