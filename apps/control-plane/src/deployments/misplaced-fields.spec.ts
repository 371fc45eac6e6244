import 'reflect-metadata';
import { getMetadataStorage, ValidationTypes } from 'class-validator';
import {
  DEPLOYMENT_BODY_SHAPES,
  misplacedFields,
  type BodyShape,
  type DeploymentBodyKind,
} from './misplaced-fields.js';

const locs = (body: unknown, kind: DeploymentBodyKind = 'create') =>
  misplacedFields(body, kind).map((issue) => issue.loc);

describe('misplacedFields', () => {
  it('names a source_config field given in source_revision_config, and where it belongs', () => {
    const [issue, ...rest] = misplacedFields(
      {
        name: 'a',
        source: 'internal_source',
        source_revision_config: { graph_config_path: 'langgraph.json', build_command: 'make' },
      },
      'create',
    );
    expect(rest).toEqual([]);
    expect(issue).toEqual({
      loc: ['body', 'source_revision_config', 'build_command'],
      msg: 'build_command does not belong in `source_revision_config`: it is a field of `source_config`',
      type: 'value_error.misplaced_field',
    });
  });

  it.each<[string, unknown, (string | number)[]]>([
    ['repo_ref in source_config', { source_config: { repo_ref: 'main' } }, ['source_config']],
    [
      'install_command in source_revision_config',
      { source_revision_config: { install_command: 'npm ci' } },
      ['source_revision_config'],
    ],
    ['build_command at the top level', { build_command: 'make' }, []],
    ['graph_config_path at the top level', { graph_config_path: 'a.json' }, []],
    ['resource_spec at the top level', { resource_spec: { cpu: 1 } }, []],
    ['secrets inside source_config', { source_config: { secrets: [] } }, ['source_config']],
    [
      'name inside source_revision_config',
      { source_revision_config: { name: 'x' } },
      ['source_revision_config'],
    ],
    ['a resource_spec field in source_config', { source_config: { cpu: 1 } }, ['source_config']],
    [
      'a source_config field in resource_spec',
      { source_config: { resource_spec: { listener_id: 'x' } } },
      ['source_config', 'resource_spec'],
    ],
    [
      'a container field in a volume',
      { source_config: { resource_spec: { volumes: [{ name: 'v' }, { name: 'w', image: 'x' }] } } },
      ['source_config', 'resource_spec', 'volumes', 1],
    ],
    [
      'a secret reference field in a secret',
      { secrets: [{ name: 'A', value: 'b', secret_key: 'k' }] },
      ['secrets', 0],
    ],
    [
      'cluster_namespace in source_config',
      { source_config: { cluster_namespace: 'ns' } },
      ['source_config'],
    ],
    [
      'an alias in the wrong object',
      { source_config: { langgraph_config_path: 'a.json' } },
      ['source_config'],
    ],
    ['revision_source on create', { revision_source: 'internal_source' }, []],
  ])('refuses %s', (_label, body, at) => {
    const found = locs(body);
    expect(found).toHaveLength(1);
    expect(found[0]?.slice(0, -1)).toEqual(['body', ...at]);
  });

  it('refuses them in a PATCH too, and takes a PATCH-only field at its top level', () => {
    expect(locs({ source_revision_config: { build_command: 'make' } }, 'patch')).toEqual([
      ['body', 'source_revision_config', 'build_command'],
    ]);
    expect(locs({ source_config: { image_uri: 'x' } }, 'patch')).toEqual([
      ['body', 'source_config', 'image_uri'],
    ]);
    expect(
      locs({ revision_source: 'internal_source', name: 'a', source: 'git_host' }, 'patch'),
    ).toEqual([]);
  });

  it('leaves unknown fields, free-form objects and well-placed bodies alone', () => {
    const body = {
      name: 'a',
      source: 'external_container',
      client_version: '1.0',
      source_config: {
        listener_id: 'x',
        listener_config: { cluster_namespace: 'ns' },
        resource_spec: {
          labels: { name: 'a', build_command: 'b' },
          init_containers: [
            {
              name: 'c',
              image: 'i',
              env: [{ name: 'E', valueFrom: { name: 'x' } }],
              resources: { limits: { cpu: '1' } },
              volumeMounts: [{ name: 'v', mountPath: '/v' }],
              securityContext: { image: 'x' },
            },
          ],
        },
      },
      source_revision_config: { image_uri: 'x', repo_commit_sha: null },
      secrets: [{ name: 'A', value: 'b' }],
      secret_references: [{ name: 'B', secret_name: 's', secret_key: 'k' }],
    };
    expect(misplacedFields(body, 'create')).toEqual([]);
    expect(misplacedFields('text', 'create')).toEqual([]);
    expect(misplacedFields({ source_config: 'x', secrets: 'y' }, 'create')).toEqual([]);
  });

  it('describes every nested object of the DTOs, so that none is walked past', () => {
    const storage = getMetadataStorage();
    const check = (shape: BodyShape, path: string): void => {
      const nested = storage
        .getTargetValidationMetadatas(shape.dto, '', true, false)
        .filter((metadata) => metadata.type === ValidationTypes.NESTED_VALIDATION)
        .map((metadata) => metadata.propertyName);
      expect({ path, nested: [...new Set(nested)].sort() }).toEqual({
        path,
        nested: Object.keys(shape.nested ?? {}).sort(),
      });
      for (const [field, inner] of Object.entries(shape.nested ?? {})) {
        check(inner, `${path}.${field}`);
      }
    };
    for (const [kind, shape] of Object.entries(DEPLOYMENT_BODY_SHAPES)) check(shape, kind);
  });
});
