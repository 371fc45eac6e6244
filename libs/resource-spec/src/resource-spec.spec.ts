import { describe, expect, it } from '@jest/globals';
import {
  RESOURCE_SPEC_CPU_FIELDS,
  RESOURCE_SPEC_FIELDS,
  resolveResourceSpec,
  resourceSpecProblems,
  roundCpu,
  type ResourceSpec,
} from './resource-spec.js';

function emptySpec(): ResourceSpec {
  return resolveResourceSpec({});
}

describe('resolveResourceSpec', () => {
  it('gives every field, null when unset', () => {
    const spec = resolveResourceSpec({});
    expect(Object.keys(spec).sort()).toEqual([...RESOURCE_SPEC_FIELDS].sort());
    expect(Object.values(spec).every((value) => value === null)).toBe(true);
  });

  it('treats undefined and null like absent', () => {
    expect(resolveResourceSpec({ cpu: null, memory_mb: undefined })).toEqual(emptySpec());
  });

  it('rounds every CPU field to 1 decimal place, half up', () => {
    const input = Object.fromEntries(RESOURCE_SPEC_CPU_FIELDS.map((field) => [field, 1.25]));
    const spec = resolveResourceSpec(input);
    for (const field of RESOURCE_SPEC_CPU_FIELDS) expect(spec[field]).toBe(1.3);
  });

  it('rounds the decimal as written, not its binary approximation', () => {
    expect(roundCpu(0.25)).toBe(0.3);
    expect(roundCpu(0.35)).toBe(0.4);
    expect(roundCpu(0.15)).toBe(0.2);
    expect(roundCpu(1.04)).toBe(1);
    expect(roundCpu(7.95)).toBe(8);
    expect(roundCpu(0.04)).toBe(0);
    expect(roundCpu(0.05)).toBe(0.1);
    expect(roundCpu(1e-7)).toBe(0);
    expect(roundCpu(2)).toBe(2);
  });

  it('derives a CPU limit from the rounded request and rounds it too', () => {
    const spec = resolveResourceSpec({ cpu: 0.25 });
    expect(spec.cpu).toBe(0.3);
    expect(spec.cpu_limit).toBe(0.6);
  });

  it('stores exact doubles for derived limits (2 x 0.3 is 0.6)', () => {
    for (let tenths = 1; tenths <= 80; tenths += 1) {
      const cpu = tenths / 10;
      const spec = resolveResourceSpec({ cpu, cache_cpu: cpu, db_cpu: cpu });
      const doubled = (tenths * 2) / 10;
      expect(spec.cpu_limit).toBe(doubled);
      expect(spec.queue_cpu_limit).toBe(doubled);
      expect(spec.cache_cpu_limit).toBe(doubled);
      expect(spec.db_cpu_limit).toBe(doubled);
      expect(String(spec.cpu_limit)).toBe(String(doubled));
    }
    expect(resolveResourceSpec({ cpu: 0.3 }).cpu_limit).toBe(0.6);
    expect(String(resolveResourceSpec({ cpu: 0.3 }).cpu_limit)).toBe('0.6');
  });

  it('derives every default from its source', () => {
    const spec = resolveResourceSpec({
      min_scale: 1,
      max_scale: 5,
      cpu: 0.5,
      memory_mb: 512,
      cache_cpu: 0.2,
      cache_memory_mb: 256,
      db_cpu: 1.5,
      db_memory_mb: 1024,
    });
    expect(spec).toMatchObject({
      cpu_limit: 1,
      memory_limit_mb: 1024,
      queue_min_scale: 1,
      queue_max_scale: 5,
      queue_cpu: 0.5,
      queue_cpu_limit: 1,
      queue_memory_mb: 512,
      queue_memory_limit_mb: 1024,
      cache_cpu_limit: 0.4,
      cache_memory_limit_mb: 256,
      db_cpu_limit: 3,
      db_memory_limit_mb: 2048,
    });
  });

  it('leaves a default unset when its source is unset', () => {
    const spec = resolveResourceSpec({ cpu_limit: 2, memory_limit_mb: 1024 });
    expect(spec.cpu).toBeNull();
    expect(spec.memory_mb).toBeNull();
    expect(spec.queue_cpu).toBeNull();
    expect(spec.queue_cpu_limit).toBeNull();
    expect(spec.queue_memory_mb).toBeNull();
    expect(spec.queue_memory_limit_mb).toBeNull();
    expect(spec.cache_cpu_limit).toBeNull();
    expect(spec.cache_memory_limit_mb).toBeNull();
    expect(spec.db_cpu_limit).toBeNull();
    expect(spec.db_memory_limit_mb).toBeNull();
    expect(spec.queue_min_scale).toBeNull();
    expect(spec.queue_max_scale).toBeNull();
  });

  it('keeps explicit values over defaults', () => {
    const spec = resolveResourceSpec({
      min_scale: 1,
      max_scale: 5,
      cpu: 1,
      cpu_limit: 1.5,
      memory_mb: 512,
      memory_limit_mb: 600,
      queue_min_scale: 0,
      queue_max_scale: 2,
      queue_cpu: 0.25,
      queue_cpu_limit: 0.44,
      queue_memory_mb: 128,
      queue_memory_limit_mb: 130,
      cache_cpu: 1,
      cache_cpu_limit: 1,
      cache_memory_mb: 100,
      cache_memory_limit_mb: 300,
      db_cpu: 2,
      db_cpu_limit: 2,
      db_memory_mb: 100,
      db_memory_limit_mb: 100,
    });
    expect(spec).toMatchObject({
      cpu_limit: 1.5,
      memory_limit_mb: 600,
      queue_min_scale: 0,
      queue_max_scale: 2,
      queue_cpu: 0.3,
      queue_cpu_limit: 0.4,
      queue_memory_mb: 128,
      queue_memory_limit_mb: 130,
      cache_cpu_limit: 1,
      cache_memory_limit_mb: 300,
      db_cpu_limit: 2,
      db_memory_limit_mb: 100,
    });
  });

  it('derives queue limits from an explicit queue request, not from the main one', () => {
    const spec = resolveResourceSpec({
      cpu: 2,
      memory_mb: 1000,
      queue_cpu: 0.5,
      queue_memory_mb: 300,
    });
    expect(spec.queue_cpu_limit).toBe(1);
    expect(spec.queue_memory_limit_mb).toBe(600);
    expect(spec.cpu_limit).toBe(4);
    expect(spec.memory_limit_mb).toBe(2000);
  });

  it('derives queue limits from a derived queue request', () => {
    const spec = resolveResourceSpec({ cpu: 0.15, memory_mb: 300 });
    expect(spec.queue_cpu).toBe(0.2);
    expect(spec.queue_cpu_limit).toBe(0.4);
    expect(spec.queue_memory_mb).toBe(300);
    expect(spec.queue_memory_limit_mb).toBe(600);
  });

  it('does not derive the do-not-use fields, but rounds their CPU', () => {
    const spec = resolveResourceSpec({ orchestrator_cpu: 0.33, executor_cpu: 1.26 });
    expect(spec.orchestrator_cpu).toBe(0.3);
    expect(spec.orchestrator_cpu_limit).toBeNull();
    expect(spec.executor_cpu).toBe(1.3);
    expect(spec.executor_cpu_limit).toBeNull();
  });

  it('copies the structured fields as plain JSON without mutating the input', () => {
    const sidecar = { name: 'proxy', image: 'envoy:1', env: [{ name: 'A', value: 'b' }] };
    const input = {
      labels: { team: 'x' },
      annotations: { note: 'y' },
      service_account_name: 'runner',
      image_pull_secrets: [{ name: 'registry' }],
      volumes: [{ name: 'data', emptyDir: {} }],
      volume_mounts: [{ name: 'data', mountPath: '/data' }],
      init_containers: [{ name: 'init', image: 'busybox', command: ['sh', '-c', 'true'] }],
      sidecars: [sidecar],
    };
    const spec = resolveResourceSpec(input);
    expect(spec).toMatchObject(input);
    expect(spec.sidecars?.[0]).not.toBe(sidecar);
    expect(input.sidecars[0]).toBe(sidecar);
  });

  it('drops undefined keys of nested objects', () => {
    const spec = resolveResourceSpec({ volumes: [{ name: 'data', secret: undefined }] });
    expect(spec.volumes).toEqual([{ name: 'data' }]);
    expect(Object.keys(spec.volumes?.[0] ?? {})).toEqual(['name']);
  });
});

describe('resourceSpecProblems', () => {
  it('finds none in an empty or consistent spec', () => {
    expect(resourceSpecProblems(emptySpec())).toEqual([]);
    expect(
      resourceSpecProblems(
        resolveResourceSpec({ min_scale: 1, max_scale: 1, cpu: 1, memory_mb: 1, db_cpu: 0.5 }),
      ),
    ).toEqual([]);
  });

  it('names a limit below its request', () => {
    const cases: [Partial<ResourceSpec>, string][] = [
      [{ cpu: 2, cpu_limit: 1 }, 'cpu_limit'],
      [{ memory_mb: 512, memory_limit_mb: 256 }, 'memory_limit_mb'],
      [{ queue_cpu: 2, queue_cpu_limit: 1 }, 'queue_cpu_limit'],
      [{ cpu: 2, queue_cpu_limit: 1 }, 'queue_cpu_limit'],
      [{ memory_mb: 512, queue_memory_limit_mb: 256 }, 'queue_memory_limit_mb'],
      [{ cache_cpu: 2, cache_cpu_limit: 1 }, 'cache_cpu_limit'],
      [{ cache_memory_mb: 512, cache_memory_limit_mb: 256 }, 'cache_memory_limit_mb'],
      [{ db_cpu: 2, db_cpu_limit: 1 }, 'db_cpu_limit'],
      [{ db_memory_mb: 512, db_memory_limit_mb: 256 }, 'db_memory_limit_mb'],
      [{ orchestrator_cpu: 2, orchestrator_cpu_limit: 1 }, 'orchestrator_cpu_limit'],
      [{ executor_memory_mb: 2, executor_memory_limit_mb: 1 }, 'executor_memory_limit_mb'],
    ];
    for (const [input, field] of cases) {
      expect(resourceSpecProblems(resolveResourceSpec(input)).map((p) => p.field)).toEqual([field]);
    }
    expect(resourceSpecProblems(resolveResourceSpec({ cpu: 2, cpu_limit: 1 }))).toEqual([
      { field: 'cpu_limit', message: 'cpu_limit (1) is below cpu (2)' },
    ]);
  });

  it('compares after rounding', () => {
    expect(resourceSpecProblems(resolveResourceSpec({ cpu: 0.5, cpu_limit: 0.46 }))).toEqual([]);
    expect(resourceSpecProblems(resolveResourceSpec({ cpu: 0.5, cpu_limit: 0.44 }))).toEqual([
      { field: 'cpu_limit', message: 'cpu_limit (0.4) is below cpu (0.5)' },
    ]);
  });

  it('names a minimum scale above its maximum', () => {
    expect(resourceSpecProblems(resolveResourceSpec({ min_scale: 3, max_scale: 2 }))).toEqual([
      { field: 'min_scale', message: 'min_scale (3) is above max_scale (2)' },
      { field: 'queue_min_scale', message: 'queue_min_scale (3) is above queue_max_scale (2)' },
    ]);
    expect(resourceSpecProblems(resolveResourceSpec({ queue_min_scale: 2, max_scale: 1 }))).toEqual(
      [{ field: 'queue_min_scale', message: 'queue_min_scale (2) is above queue_max_scale (1)' }],
    );
    expect(
      resourceSpecProblems(
        resolveResourceSpec({ orchestrator_min_scale: 2, orchestrator_max_scale: 1 }),
      ).map((p) => p.field),
    ).toEqual(['orchestrator_min_scale']);
  });

  it('names a CPU field that rounds to 0', () => {
    expect(resourceSpecProblems(resolveResourceSpec({ db_cpu: 0.04 })).map((p) => p.field)).toEqual(
      ['db_cpu', 'db_cpu_limit'],
    );
  });

  it('names a repeated volume name and a mount of no volume', () => {
    const spec = resolveResourceSpec({
      volumes: [{ name: 'data' }, { name: 'data' }],
      volume_mounts: [{ name: 'data', mountPath: '/a' }, { name: 'other' }, { mountPath: '/b' }],
      sidecars: [{ name: 's', image: 'i', volumeMounts: [{ name: 'cache' }] }],
      init_containers: [{ name: 'i', image: 'i', volumeMounts: [{ name: 'data' }] }],
    });
    expect(resourceSpecProblems(spec).map((p) => p.field)).toEqual([
      'volumes[1].name',
      'volume_mounts[1].name',
      'sidecars[0].volumeMounts[0].name',
    ]);
  });
});
