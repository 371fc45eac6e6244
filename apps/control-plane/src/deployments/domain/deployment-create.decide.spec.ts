import { describe, expect, it } from '@jest/globals';
import type { DeploymentSource } from './deployment.types.js';
import {
  CLUSTER_LISTENER,
  createExternal,
  createGitHost,
  createInternal,
  created,
  CREATED_AT,
  decide,
  DEPLOYMENT_ID,
  expectDomainError,
  FIRST_REVISION_ID,
  given,
  INTEGRATION_ID,
  LISTENER_ID,
  LOCAL_LISTENER,
  revisionOf,
  sealed,
  TENANT_ID,
  types,
  type CreateCommand,
} from './testing/deployment-decider.fixtures.js';

type Section = 'source_config' | 'source_revision_config';

const BUILDERS: Record<Exclude<DeploymentSource, 'internal_container'>, typeof createGitHost> = {
  git_host: createGitHost,
  external_container: createExternal,
  internal_source: createInternal,
};

/** The command for `source` with one more field in the given section. */
function createWith(
  source: keyof typeof BUILDERS,
  section: Section,
  field: string,
  value: unknown,
): CreateCommand {
  const base = BUILDERS[source]();
  return { ...base, [section]: { ...base[section], [field]: value } };
}

function createdOf(command: CreateCommand) {
  const [first] = created(command);
  if (first?.type !== 'DeploymentCreated') throw new Error('no DeploymentCreated');
  return first.data;
}

const SOURCES = ['git_host', 'external_container', 'internal_source'] as const;

/** Each settable field, where it lives, a value, and the sources that accept it on create. */
const FIELDS: readonly [Section, string, unknown, readonly DeploymentSource[]][] = [
  ['source_config', 'integration_id', INTEGRATION_ID, ['git_host']],
  ['source_config', 'repo_url', 'https://git.example/a/b', ['git_host']],
  ['source_config', 'build_on_push', true, ['git_host']],
  ['source_config', 'deployment_type', 'dev', ['git_host', 'internal_source']],
  ['source_config', 'custom_url', 'https://agent.example', ['external_container']],
  ['source_config', 'resource_spec', { cpu: 1 }, ['external_container']],
  ['source_config', 'listener_id', LISTENER_ID, ['external_container']],
  ['source_config', 'listener_config', { cluster_namespace: 'ns' }, ['external_container']],
  ['source_config', 'install_command', 'npm ci', ['git_host', 'internal_source']],
  ['source_config', 'build_command', 'npm run build', ['git_host', 'internal_source']],
  ['source_revision_config', 'repo_ref', 'main', ['git_host']],
  ['source_revision_config', 'graph_config_path', 'graph.json', ['git_host', 'internal_source']],
  ['source_revision_config', 'image_uri', 'registry.example/x:1', ['external_container']],
  ['source_revision_config', 'source_tarball_path', 'uploads/x.tgz', ['internal_source']],
  ['source_revision_config', 'repo_commit_sha', 'abc123', []],
];

const refusedRows = FIELDS.flatMap(([section, field, value, allowed]) =>
  SOURCES.filter((source) => !allowed.includes(source)).map(
    (source) => [section, field, source, value] as const,
  ),
);

const acceptedRows = FIELDS.filter(
  ([, field]) => field !== 'source_tarball_path' && field !== 'repo_commit_sha',
).flatMap(([section, field, value, allowed]) =>
  allowed.map((source) => [section, field, source as keyof typeof BUILDERS, value] as const),
);

describe('deployment decider: create', () => {
  it('creates a git_host deployment with its first revision', () => {
    const events = created(createGitHost({ secrets: sealed('API_KEY') }));
    expect(types(events)).toEqual(['DeploymentCreated', 'RevisionCreated']);
    expect(events[0]).toEqual({
      type: 'DeploymentCreated',
      data: {
        deployment_id: DEPLOYMENT_ID,
        tenant_id: TENANT_ID,
        name: 'my-agent',
        source: 'git_host',
        source_config: {
          integration_id: INTEGRATION_ID,
          repo_url: 'https://git.example/a/b',
          deployment_type: null,
          build_on_push: false,
          custom_url: null,
          resource_spec: null,
          listener_id: null,
          listener_config: null,
          install_command: null,
          build_command: null,
        },
        source_revision_config: {
          repo_ref: 'main',
          graph_config_path: 'graph.json',
          image_uri: null,
          source_tarball_path: null,
          repo_commit_sha: null,
        },
        secrets: sealed('API_KEY'),
        secret_references: null,
        tracing_project_id: 'tracing-1',
        created_at: CREATED_AT,
      },
    });
    expect(revisionOf(events)).toEqual({
      revision_id: FIRST_REVISION_ID,
      source: 'git_host',
      source_revision_config: {
        repo_ref: 'main',
        graph_config_path: 'graph.json',
        image_uri: null,
        source_tarball_path: null,
        repo_commit_sha: null,
      },
      resource_spec: null,
      secrets: sealed('API_KEY'),
      secrets_changed: ['API_KEY'],
      trigger: 'create',
      created_at: CREATED_AT,
      source_tarball_sha256: null,
    });
  });

  it('creates an internal_source deployment without a revision until a tarball is uploaded', () => {
    const events = created(createInternal({ source_config: { deployment_type: 'prod' } }));
    expect(types(events)).toEqual(['DeploymentCreated']);
    const state = given(events);
    expect(state.latest_revision_id).toBeNull();
    expect(state.source_config.deployment_type).toBe('prod');
    expect(state.source_config.build_on_push).toBeNull();
  });

  it('creates an external_container deployment with its first revision', () => {
    const events = created(createExternal());
    expect(types(events)).toEqual(['DeploymentCreated', 'RevisionCreated']);
    expect(revisionOf(events).source_revision_config.image_uri).toBe('registry.example/agent:1');
    expect(given(events).source_config.listener_id).toBe(LISTENER_ID);
  });

  it('refuses to create a deployment that already exists (409)', () => {
    expectDomainError(
      () => decide(createGitHost(), given(created(createGitHost()))),
      'conflict',
      /Deployment dep-1 already exists/,
    );
  });

  it('refuses internal_container (400 naming source)', () => {
    expectDomainError(
      () => created(createInternal({ source: 'internal_container' })),
      'bad_request',
      /^source internal_container is not supported/,
    );
  });

  describe('field applicability', () => {
    it.each(refusedRows)('refuses %s.%s for %s', (section, field, source, value) => {
      const message =
        field === 'repo_commit_sha'
          ? /^source_revision_config\.repo_commit_sha is read-only/
          : field === 'custom_url' && source === 'git_host'
            ? /^source_config\.custom_url is set by the platform for git_host/
            : new RegExp(`^${section}\\.${field} is only for .* not for ${source}$`);
      expectDomainError(
        () => created(createWith(source, section, field, value)),
        'bad_request',
        message,
      );
    });

    it.each(acceptedRows)('accepts %s.%s for %s', (section, field, source, value) => {
      const command = createWith(source, section, field, value);
      const data = createdOf(command);
      const stored = (data[section] as Record<string, unknown>)[field];
      if (field === 'resource_spec') {
        // Kept on the revision, resolved; see the resource spec tests.
        expect(revisionOf(created(command)).resource_spec?.cpu).toBe(1);
      } else {
        expect(stored).toEqual(value);
      }
    });

    it('refuses a source_tarball_path on create even for internal_source', () => {
      expectDomainError(
        () =>
          created(
            createInternal({
              source_revision_config: { graph_config_path: 'g.json', source_tarball_path: 'x' },
            }),
          ),
        'bad_request',
        /^source_revision_config\.source_tarball_path must come from POST \/v2\/deployments\/\{id\}\/upload-url/,
      );
    });

    it.each(['git_host', 'internal_source'] as const)(
      'treats a null field of another source like an absent one (%s)',
      (source) => {
        const base = BUILDERS[source]();
        const command: CreateCommand = {
          ...base,
          source_config: { ...base.source_config, resource_spec: null, listener_id: null },
          source_revision_config: { ...base.source_revision_config, image_uri: null },
        };
        expect(types(created(command))[0]).toBe('DeploymentCreated');
      },
    );

    it('accepts secret_references for external_container', () => {
      const references = [{ name: 'TOKEN', secret_name: 's', secret_key: 'k' }];
      expect(
        createdOf(createExternal({ secret_references: references })).secret_references,
      ).toEqual(references);
    });

    it.each(['git_host', 'internal_source'] as const)(
      'refuses secret_references for %s',
      (source) => {
        const references = [{ name: 'TOKEN', secret_name: 's', secret_key: 'k' }];
        expectDomainError(
          () => created({ ...BUILDERS[source](), secret_references: references }),
          'bad_request',
          /^secret_references is only for external_container/,
        );
      },
    );
  });

  describe('required fields', () => {
    it('requires graph_config_path for git_host', () => {
      expectDomainError(
        () => created(createWith('git_host', 'source_revision_config', 'graph_config_path', null)),
        'bad_request',
        /^source_revision_config\.graph_config_path is required for git_host/,
      );
    });

    it('creates an internal_source deployment with no revision configuration and no revision', () => {
      const events = created(createInternal({ source_revision_config: {} }));
      expect(events.map((event) => event.type)).toEqual(['DeploymentCreated']);
    });

    it.each([
      ['source_config', 'integration_id'],
      ['source_config', 'repo_url'],
      ['source_revision_config', 'repo_ref'],
    ] as const)('requires %s.%s for git_host', (section, field) => {
      expectDomainError(
        () => created(createWith('git_host', section, field, null)),
        'bad_request',
        new RegExp(`^${section}\\.${field} is required for git_host`),
      );
    });

    it('requires the integration_id of the tenant for git_host', () => {
      expectDomainError(
        () => created(createWith('git_host', 'source_config', 'integration_id', 'someone-else')),
        'bad_request',
        /^source_config\.integration_id is not an integration of this tenant/,
      );
    });

    it('requires image_uri for external_container', () => {
      expectDomainError(
        () => created(createExternal({ source_revision_config: {} })),
        'bad_request',
        /^source_revision_config\.image_uri is required for external_container/,
      );
    });

    it('requires listener_id for external_container', () => {
      expectDomainError(
        () => created(createExternal({ source_config: {}, listener: null })),
        'bad_request',
        /^source_config\.listener_id is required for external_container/,
      );
    });

    it('refuses a listener_id that names no listener', () => {
      expectDomainError(
        () => created(createExternal({ listener: null })),
        'bad_request',
        /^source_config\.listener_id listener-cluster is not a known listener/,
      );
    });

    it('refuses a listener_id that names a local listener', () => {
      expectDomainError(
        () => created(createExternal({ listener: LOCAL_LISTENER })),
        'bad_request',
        /^source_config\.listener_id names the local listener/,
      );
    });

    it('keeps listener_config.cluster_namespace for a cluster listener', () => {
      const command = createExternal({
        source_config: { listener_id: LISTENER_ID, listener_config: { cluster_namespace: 'ns' } },
        listener: CLUSTER_LISTENER,
      });
      expect(createdOf(command).source_config.listener_config).toEqual({ cluster_namespace: 'ns' });
    });
  });

  describe('build_on_push and tags', () => {
    it('refuses build_on_push true with a refs/tags/ repo_ref', () => {
      const command = createGitHost({
        source_config: { integration_id: INTEGRATION_ID, repo_url: 'u', build_on_push: true },
        source_revision_config: { repo_ref: 'refs/tags/v1', graph_config_path: 'g.json' },
      });
      expectDomainError(
        () => created(command),
        'bad_request',
        /^source_config\.build_on_push must be false/,
      );
    });

    it.each([
      [false, 'refs/tags/v1'],
      [true, 'main'],
      [true, 'tags/v1'],
    ])('accepts build_on_push %s with repo_ref %s', (buildOnPush, ref) => {
      const command = createGitHost({
        source_config: {
          integration_id: INTEGRATION_ID,
          repo_url: 'u',
          build_on_push: buildOnPush,
        },
        source_revision_config: { repo_ref: ref, graph_config_path: 'g.json' },
      });
      expect(createdOf(command).source_config.build_on_push).toBe(buildOnPush);
    });
  });

  describe('deployment names', () => {
    it.each([
      ['../../etc/passwd', /^name must not contain '\/'/],
      ['a/b', /^name must not contain '\/'/],
      ['..', /^name must not contain '\.\.'/],
      ['up..', /^name must not contain '\.\.'/],
      ['tab\there', /^name must not contain a control character/],
      ['nul\u0000', /^name must not contain a control character/],
      ['del\u007f', /^name must not contain a control character/],
      ['c1\u0085', /^name must not contain a control character/],
      ['', /^name must be 1 to 128 characters/],
      ['x'.repeat(129), /^name must be 1 to 128 characters/],
    ])('refuses %j with a validation error (422)', (name, message) => {
      expectDomainError(() => created(createInternal({ name })), 'validation', message);
    });

    it.each(['my agent', 'Ünïcode ✓', 'a.b', '.hidden', 'a\\b', 'x'.repeat(128)])(
      'accepts %j: a directory name can hold it',
      (name) => {
        expect(createdOf(createInternal({ name })).name).toBe(name);
      },
    );
  });

  describe('secret names', () => {
    it.each([
      [['1ABC'], /^secrets: "1ABC" is not a valid environment variable name/],
      [['MY-VAR'], /^secrets: "MY-VAR" is not a valid environment variable name/],
      [[''], /^secrets: "" is not a valid environment variable name/],
      [['DATABASE_URL'], /^secrets: "DATABASE_URL" is reserved/],
      [['BERTH_TOKEN'], /^secrets: "BERTH_TOKEN" is reserved/],
      [['A', 'B', 'A'], /^secrets: "A" is given more than once/],
    ])('refuses secrets %j', (names, message) => {
      expectDomainError(
        () => created(createGitHost({ secrets: sealed(...names) })),
        'bad_request',
        message,
      );
    });

    it('accepts valid, distinct names', () => {
      const events = created(createExternal({ secrets: sealed('_A', 'b1', 'OPENAI_API_KEY') }));
      expect(revisionOf(events).secrets_changed).toEqual(['_A', 'b1', 'OPENAI_API_KEY']);
    });
  });

  describe('resource_spec', () => {
    it('stores the resolved spec in the RevisionCreated, not in DeploymentCreated', () => {
      const events = created(
        createExternal({
          source_config: {
            listener_id: LISTENER_ID,
            resource_spec: {
              cpu: 0.25,
              memory_mb: 512,
              min_scale: 1,
              max_scale: 3,
              cache_memory_mb: 256,
            },
          },
        }),
      );
      expect(createdOf(createExternal()).source_config.resource_spec).toBeNull();
      const spec = revisionOf(events).resource_spec;
      expect(spec).toMatchObject({
        cpu: 0.3,
        cpu_limit: 0.6,
        memory_mb: 512,
        memory_limit_mb: 1024,
        queue_min_scale: 1,
        queue_max_scale: 3,
        queue_cpu: 0.3,
        queue_cpu_limit: 0.6,
        queue_memory_mb: 512,
        queue_memory_limit_mb: 1024,
        cache_memory_mb: 256,
        cache_memory_limit_mb: 256,
        db_cpu: null,
      });
      expect(given(events).source_config.resource_spec).toEqual(spec);
    });

    it.each([
      [{ cpu: 2, cpu_limit: 1 }, 'cpu_limit'],
      [{ cpu: 1, queue_cpu_limit: 0.5 }, 'queue_cpu_limit'],
      [{ memory_mb: 512, queue_memory_limit_mb: 256 }, 'queue_memory_limit_mb'],
      [{ cache_memory_mb: 512, cache_memory_limit_mb: 256 }, 'cache_memory_limit_mb'],
      [{ min_scale: 3, max_scale: 1 }, 'min_scale'],
    ])('refuses the resolved spec %j (400 naming %s)', (spec, field) => {
      expectDomainError(
        () =>
          created(
            createExternal({ source_config: { listener_id: LISTENER_ID, resource_spec: spec } }),
          ),
        'bad_request',
        new RegExp(`^source_config\\.resource_spec\\.${field}: `),
      );
    });
  });
});
