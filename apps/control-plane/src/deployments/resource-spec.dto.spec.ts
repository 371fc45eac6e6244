import { describe, expect, it } from '@jest/globals';
import { Type } from 'class-transformer';
import { IsOptional, ValidateNested } from 'class-validator';
import { createValidationPipe, ValidationFailedError, type ValidationIssue } from '#libs/http';
import { RESOURCE_SPEC_FIELDS, resolveResourceSpec } from '#libs/resource-spec';
import { ResourceSpecDto } from './resource-spec.dto.js';

class SourceConfigDto {
  @IsOptional()
  @ValidateNested()
  @Type(() => ResourceSpecDto)
  resource_spec?: ResourceSpecDto | null;
}

class BodyDto {
  @ValidateNested()
  @Type(() => SourceConfigDto)
  source_config!: SourceConfigDto;
}

const SPEC_LOC = ['body', 'source_config', 'resource_spec'];

async function accept(resourceSpec: unknown): Promise<ResourceSpecDto | null | undefined> {
  const body = (await createValidationPipe().transform(
    { source_config: { resource_spec: resourceSpec } },
    { type: 'body', metatype: BodyDto },
  )) as BodyDto;
  return body.source_config.resource_spec;
}

async function issues(resourceSpec: unknown): Promise<ValidationIssue[]> {
  try {
    await accept(resourceSpec);
  } catch (error) {
    if (error instanceof ValidationFailedError) return error.issues;
    throw error;
  }
  throw new Error('the body was accepted');
}

async function locs(resourceSpec: unknown): Promise<(string | number)[][]> {
  return (await issues(resourceSpec)).map((issue) => issue.loc);
}

function plain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

const SIDECAR = { name: 'proxy', image: 'envoy:1.30' };

describe('ResourceSpecDto through the validation pipe', () => {
  it('accepts a full spec and resolves it', async () => {
    const input = {
      min_scale: 1,
      max_scale: 3,
      cpu: 0.25,
      memory_mb: 512,
      cache_cpu: 0.5,
      cache_memory_mb: 256,
      db_cpu: 1,
      db_storage_gi: 10,
      db_max_connections: 100,
      labels: { team: 'search' },
      annotations: { 'example.com/owner': 'ops' },
      service_account_name: 'runner',
      image_pull_secrets: [{ name: 'registry' }],
      volumes: [{ name: 'data', emptyDir: {} }],
      volume_mounts: [{ name: 'data', mountPath: '/data', readOnly: true }],
      init_containers: [{ name: 'migrate', image: 'tool:1', command: ['migrate'], args: ['--up'] }],
      sidecars: [
        {
          ...SIDECAR,
          imagePullPolicy: 'IfNotPresent',
          restartPolicy: 'Always',
          env: [{ name: 'LOG_LEVEL', value: 'info' }],
          resources: { limits: { cpu: '500m' }, requests: { memory: '64Mi' } },
          volumeMounts: [{ name: 'data', mountPath: '/data' }],
        },
      ],
    };
    const dto = await accept(input);
    expect(dto).toBeInstanceOf(ResourceSpecDto);
    expect(plain(dto)).toEqual(input);
    const spec = resolveResourceSpec(dto ?? {});
    expect(spec.cpu).toBe(0.3);
    expect(spec.cpu_limit).toBe(0.6);
    expect(spec.sidecars).toEqual(input.sidecars);
  });

  it('accepts null for the spec and for every field', async () => {
    expect(await accept(null)).toBeNull();
    const allNull = Object.fromEntries(RESOURCE_SPEC_FIELDS.map((field) => [field, null]));
    const dto = await accept(allNull);
    expect(plain(dto)).toEqual(allNull);
    expect(resolveResourceSpec(dto ?? {})).toEqual(allNull);
  });

  it('accepts null for the optional fields of nested objects', async () => {
    const sidecar = {
      ...SIDECAR,
      imagePullPolicy: null,
      command: null,
      args: null,
      workingDir: null,
      env: [{ name: 'A', value: null, valueFrom: null }],
      envFrom: null,
      resources: { limits: null, requests: null },
      volumeMounts: null,
      securityContext: null,
      restartPolicy: null,
    };
    const dto = await accept({ sidecars: [sidecar], volumes: [{ name: 'v', csi: null }] });
    expect(plain(dto?.sidecars)).toEqual([sidecar]);
  });

  it('refuses CPU outside its bounds with the full loc and a message', async () => {
    expect(await issues({ cpu: 0.05 })).toEqual([
      { loc: [...SPEC_LOC, 'cpu'], msg: 'cpu must not be less than 0.1', type: 'min' },
    ]);
    expect(await issues({ cpu: 8.5 })).toEqual([
      { loc: [...SPEC_LOC, 'cpu'], msg: 'cpu must not be greater than 8', type: 'max' },
    ]);
    expect(await locs({ queue_cpu: 9, cache_cpu: 0 })).toEqual([
      [...SPEC_LOC, 'queue_cpu'],
      [...SPEC_LOC, 'cache_cpu'],
    ]);
    expect(await issues({ cpu_limit: 16.5 })).toEqual([
      {
        loc: [...SPEC_LOC, 'cpu_limit'],
        msg: 'cpu_limit must not be greater than 16',
        type: 'max',
      },
    ]);
    expect(await locs({ queue_cpu_limit: 0.01, cache_cpu_limit: 17 })).toEqual([
      [...SPEC_LOC, 'queue_cpu_limit'],
      [...SPEC_LOC, 'cache_cpu_limit'],
    ]);
  });

  it('accepts CPU at its bounds', async () => {
    const dto = await accept({ cpu: 0.1, queue_cpu: 8, cpu_limit: 16, cache_cpu_limit: 0.1 });
    expect(dto).toMatchObject({ cpu: 0.1, queue_cpu: 8, cpu_limit: 16, cache_cpu_limit: 0.1 });
  });

  it('refuses a non-number CPU and a non-positive database CPU', async () => {
    expect((await issues({ cpu: '1' })).map((issue) => issue.type)).toContain('isNumber');
    expect(await locs({ db_cpu: 0 })).toEqual([[...SPEC_LOC, 'db_cpu']]);
    expect(await issues({ db_cpu_limit: -1 })).toEqual([
      {
        loc: [...SPEC_LOC, 'db_cpu_limit'],
        msg: 'db_cpu_limit must be a positive number',
        type: 'isPositive',
      },
    ]);
  });

  it('refuses fractional and out-of-range integers', async () => {
    expect(await issues({ memory_mb: 512.5 })).toEqual([
      {
        loc: [...SPEC_LOC, 'memory_mb'],
        msg: 'memory_mb must be an integer number',
        type: 'isInt',
      },
    ]);
    expect(await issues({ min_scale: -1 })).toEqual([
      { loc: [...SPEC_LOC, 'min_scale'], msg: 'min_scale must not be less than 0', type: 'min' },
    ]);
    expect(await locs({ max_scale: 1.5, queue_min_scale: '2', db_storage_gi: 0 })).toEqual([
      [...SPEC_LOC, 'max_scale'],
      [...SPEC_LOC, 'queue_min_scale'],
      [...SPEC_LOC, 'queue_min_scale'],
      [...SPEC_LOC, 'db_storage_gi'],
    ]);
    expect(await locs({ memory_limit_mb: 0, db_max_connections: 0 })).toEqual([
      [...SPEC_LOC, 'memory_limit_mb'],
      [...SPEC_LOC, 'db_max_connections'],
    ]);
    expect(await accept({ min_scale: 0, max_scale: 0, memory_mb: 1 })).toMatchObject({
      min_scale: 0,
      max_scale: 0,
      memory_mb: 1,
    });
  });

  it('refuses labels and annotations with a non-string value', async () => {
    expect(await issues({ labels: { team: 'a', tier: 1 } })).toEqual([
      {
        loc: [...SPEC_LOC, 'labels'],
        msg: 'labels must be an object whose values are all strings',
        type: 'isStringMap',
      },
    ]);
    expect(await locs({ annotations: ['a'] })).toEqual([[...SPEC_LOC, 'annotations']]);
    expect(await locs({ annotations: { nested: { a: 'b' } } })).toEqual([
      [...SPEC_LOC, 'annotations'],
    ]);
    expect(await locs({ labels: 'team=a' })).toEqual([[...SPEC_LOC, 'labels']]);
  });

  it('refuses volume and container names that are not DNS labels', async () => {
    expect(await locs({ volumes: [{ name: 'ok' }, { name: 'Not_OK' }] })).toEqual([
      [...SPEC_LOC, 'volumes', 1, 'name'],
    ]);
    expect(await locs({ volumes: [{ name: '-lead' }, { name: 'trail-' }, { name: '' }] })).toEqual([
      [...SPEC_LOC, 'volumes', 0, 'name'],
      [...SPEC_LOC, 'volumes', 1, 'name'],
      [...SPEC_LOC, 'volumes', 2, 'name'],
    ]);
    expect(await issues({ init_containers: [{ name: 'a'.repeat(64), image: 'x' }] })).toEqual([
      {
        loc: [...SPEC_LOC, 'init_containers', 0, 'name'],
        msg: 'name must be shorter than or equal to 63 characters',
        type: 'maxLength',
      },
    ]);
    expect(await accept({ sidecars: [{ name: 'a'.repeat(63), image: 'x' }] })).toBeDefined();
    expect(await locs({ volumes: [{ emptyDir: {} }] })).toEqual([
      [...SPEC_LOC, 'volumes', 0, 'name'],
      [...SPEC_LOC, 'volumes', 0, 'name'],
      [...SPEC_LOC, 'volumes', 0, 'name'],
    ]);
  });

  it('reports a nested array element by its index, as a number', async () => {
    expect(await issues({ sidecars: [SIDECAR, { ...SIDECAR, name: 'Bad' }] })).toEqual([
      {
        loc: [...SPEC_LOC, 'sidecars', 1, 'name'],
        msg: "name must be a DNS label: lower-case letters, digits and '-', starting and ending with a letter or digit",
        type: 'matches',
      },
    ]);
    expect(
      await locs({
        sidecars: [
          {
            ...SIDECAR,
            env: [{ name: 'OK' }, { name: '1BAD' }],
            volumeMounts: [{ readOnly: 'yes' }],
          },
        ],
      }),
    ).toEqual([
      [...SPEC_LOC, 'sidecars', 0, 'env', 1, 'name'],
      [...SPEC_LOC, 'sidecars', 0, 'volumeMounts', 0, 'readOnly'],
    ]);
    expect(await locs({ sidecars: [SIDECAR, 'proxy'] })).toEqual([[...SPEC_LOC, 'sidecars', 1]]);
    expect(await locs({ sidecars: SIDECAR })).toEqual([[...SPEC_LOC, 'sidecars']]);
  });

  it('refuses a container without an image and bad enums and string arrays', async () => {
    expect(await locs({ sidecars: [{ name: 'a' }] })).toEqual([
      [...SPEC_LOC, 'sidecars', 0, 'image'],
      [...SPEC_LOC, 'sidecars', 0, 'image'],
    ]);
    expect(
      await locs({
        sidecars: [
          {
            ...SIDECAR,
            imagePullPolicy: 'Sometimes',
            restartPolicy: 'Never',
            command: ['a', 1],
            args: 'x',
          },
        ],
      }),
    ).toEqual([
      [...SPEC_LOC, 'sidecars', 0, 'imagePullPolicy'],
      [...SPEC_LOC, 'sidecars', 0, 'command'],
      [...SPEC_LOC, 'sidecars', 0, 'args'],
      [...SPEC_LOC, 'sidecars', 0, 'restartPolicy'],
    ]);
    expect(await locs({ sidecars: [{ ...SIDECAR, resources: { limits: { cpu: 1 } } }] })).toEqual([
      [...SPEC_LOC, 'sidecars', 0, 'resources', 'limits'],
    ]);
    expect(await locs({ sidecars: [{ ...SIDECAR, envFrom: [{}, 'x'] }] })).toEqual([
      [...SPEC_LOC, 'sidecars', 0, 'envFrom'],
    ]);
    expect(await locs({ image_pull_secrets: [{}] })).toEqual([
      [...SPEC_LOC, 'image_pull_secrets', 0, 'name'],
      [...SPEC_LOC, 'image_pull_secrets', 0, 'name'],
    ]);
  });

  it('refuses valueFrom beside a non-empty value', async () => {
    const valueFrom = { secretKeyRef: { name: 's', key: 'k' } };
    expect(
      await issues({ sidecars: [{ ...SIDECAR, env: [{ name: 'TOKEN', value: 'x', valueFrom }] }] }),
    ).toEqual([
      {
        loc: [...SPEC_LOC, 'sidecars', 0, 'env', 0, 'valueFrom'],
        msg: 'valueFrom cannot be used when value is non-empty',
        type: 'conflictsWithValue',
      },
    ]);
    const env = [
      { name: 'TOKEN', value: '', valueFrom },
      { name: 'OTHER', valueFrom },
      { name: 'PLAIN', value: 'x', valueFrom: null },
    ];
    const dto = await accept({ sidecars: [{ ...SIDECAR, env }] });
    expect(plain(dto?.sidecars?.[0]?.env)).toEqual(env);
  });

  it('keeps free-form objects unchanged', async () => {
    const volume = {
      name: 'everything',
      configMap: {
        name: 'cfg',
        items: [{ key: 'a', path: 'b/c' }],
        defaultMode: 420,
        optional: null,
      },
      secret: { secretName: 's', extra_key: { deep: [1, 'two', true, null] } },
      emptyDir: { medium: 'Memory', sizeLimit: '1Gi' },
      persistentVolumeClaim: { claimName: 'pvc', readOnly: false },
      nfs: { server: '10.0.0.1', path: '/exports' },
      projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3600 } }] },
      downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] },
      csi: { driver: 'x.csi', volumeAttributes: { when: '2024-01-01T00:00:00Z' } },
    };
    const sidecar = {
      ...SIDECAR,
      envFrom: [{ configMapRef: { name: 'cfg' } }, { prefix: 'P_', secretRef: { name: 's' } }],
      securityContext: { runAsUser: 1000, capabilities: { drop: ['ALL'] } },
      env: [{ name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
    };
    const dto = await accept({ volumes: [volume], sidecars: [sidecar] });
    expect(plain(dto?.volumes)).toEqual([volume]);
    expect(plain(dto?.sidecars)).toEqual([sidecar]);
    expect(dto?.volumes?.[0]?.csi?.['volumeAttributes']).toEqual({ when: '2024-01-01T00:00:00Z' });
  });

  it('strips unknown properties of the spec and of typed nested objects', async () => {
    const dto = await accept({
      cpu: 1,
      gpu: 2,
      sidecars: [{ ...SIDECAR, lifecycle: {} }],
      volumes: [{ name: 'v', hostPath: { path: '/' } }],
    });
    expect(plain(dto)).toEqual({ cpu: 1, sidecars: [SIDECAR], volumes: [{ name: 'v' }] });
  });
});
