import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { IPodTemplateSpec } from 'kubernetes-models/v1/PodTemplateSpec';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IVolumeMount } from 'kubernetes-models/v1/VolumeMount';
import { connectionsPerPod } from '../database-connections.js';
import { requirementsOf, type ContainerResources } from '../resource-defaults.js';
import { metadataOf, selectorLabels, type RenderContext } from './render-context.js';
import { withoutNulls } from './user-objects.js';

/** The runtime's port in the pod. */
export const RUNTIME_PORT = 8000;
/** Writable places of a read-only root filesystem: the runtime's data and the temporary files. */
const SCRATCH_VOLUMES = [
  { name: 'berth-data', mountPath: '/var/lib/berth' },
  { name: 'berth-tmp', mountPath: '/tmp' },
] as const;

/** How a pod of the runtime takes part: serving the API, or running the queue's runs. */
export type RuntimeRole = 'api' | 'queue';

/** What the runtime reads to take its role (see runtime.config.ts). */
function roleEnv(role: RuntimeRole): IEnvVar[] {
  return role === 'api'
    ? [{ name: 'BERTH_RUN_WORKERS', value: 'false' }]
    : [
        { name: 'BERTH_RUN_WORKERS', value: 'true' },
        { name: 'BERTH_SERVE_API', value: 'false' },
      ];
}

function runtimeEnv(context: RenderContext, role: RuntimeRole): IEnvVar[] {
  const { revision, names } = context;
  const plain = Object.entries(revision.env).map(([name, value]) => ({ name, value }));
  const referenced = revision.secretReferences.map((reference) => ({
    name: reference.name,
    valueFrom: { secretKeyRef: { name: reference.secret_name, key: reference.secret_key } },
  }));
  return [
    { name: 'BERTH_HOST', value: '0.0.0.0' },
    { name: 'BERTH_RUNTIME_PORT', value: String(RUNTIME_PORT) },
    { name: 'BERTH_DATA_DIR', value: SCRATCH_VOLUMES[0].mountPath },
    {
      name: 'DATABASE_URL',
      valueFrom: { secretKeyRef: { name: names.databaseCredentials, key: 'url' } },
    },
    // Every pod and revision of the deployment opens the same data keys (a deployment secret
    // named BERTH_MASTER_KEY, below, comes after and wins).
    ...(revision.database.masterKey
      ? [
          {
            name: 'BERTH_MASTER_KEY',
            valueFrom: { secretKeyRef: { name: names.databaseCredentials, key: 'master-key' } },
          },
        ]
      : []),
    { name: 'BERTH_DATABASE_CONNECTIONS', value: String(connectionsPerPod(context.resources)) },
    ...roleEnv(role),
    ...plain,
    ...referenced,
  ];
}

function runtimeContainer(
  context: RenderContext,
  role: RuntimeRole,
  resources: ContainerResources,
): IContainer {
  const { revision, names } = context;
  const probe = { httpGet: { path: '/ok', port: 'http' }, periodSeconds: 10 };
  const userMounts = withoutNulls(revision.resources?.volume_mounts ?? []) as IVolumeMount[];
  return {
    name: 'runtime',
    image: revision.image,
    ports: [{ name: 'http', containerPort: RUNTIME_PORT, protocol: 'TCP' }],
    env: runtimeEnv(context, role),
    ...(revision.secrets.length ? { envFrom: [{ secretRef: { name: names.secrets } }] } : {}),
    resources: requirementsOf(resources),
    readinessProbe: { ...probe, failureThreshold: 3 },
    livenessProbe: { ...probe, initialDelaySeconds: 10, failureThreshold: 6 },
    volumeMounts: [...SCRATCH_VOLUMES.map((volume) => ({ ...volume })), ...userMounts],
    securityContext: {
      runAsNonRoot: true,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    },
  };
}

/**
 * The spec's sidecars: one with `restartPolicy: Always` is a native sidecar (an init container
 * that keeps running beside the runtime); the others are containers beside it.
 */
function sidecarsOf(context: RenderContext): { native: IContainer[]; plain: IContainer[] } {
  const sidecars = withoutNulls(context.revision.resources?.sidecars ?? []) as IContainer[];
  return {
    native: sidecars.filter((sidecar) => sidecar.restartPolicy === 'Always'),
    plain: sidecars
      .filter((sidecar) => sidecar.restartPolicy !== 'Always')
      .map(({ restartPolicy: _ignored, ...container }) => container),
  };
}

/** The pod of the runtime in one role, with everything the resource spec adds to it. */
export function runtimePodTemplate(
  context: RenderContext,
  role: RuntimeRole,
  resources: ContainerResources,
): IPodTemplateSpec {
  const spec = context.revision.resources;
  const sidecars = sidecarsOf(context);
  const initContainers = [
    ...(withoutNulls(spec?.init_containers ?? []) as IContainer[]),
    ...sidecars.native,
  ];
  const volumes: IVolume[] = [
    ...SCRATCH_VOLUMES.map(({ name }) => ({ name, emptyDir: {} })),
    ...(withoutNulls(spec?.volumes ?? []) as IVolume[]),
  ];
  const metadata = metadataOf(context, context.names[role], role);
  return {
    metadata: {
      labels: { ...metadata.labels, ...selectorLabels(context, role) },
      annotations: metadata.annotations,
    },
    spec: {
      ...(spec?.service_account_name
        ? { serviceAccountName: spec.service_account_name }
        : { automountServiceAccountToken: false }),
      ...(spec?.image_pull_secrets?.length
        ? { imagePullSecrets: spec.image_pull_secrets.map(({ name }) => ({ name })) }
        : {}),
      securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
      ...(initContainers.length ? { initContainers } : {}),
      containers: [runtimeContainer(context, role, resources), ...sidecars.plain],
      volumes,
    },
  };
}
