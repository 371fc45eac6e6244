import { describe, expect, it } from '@jest/globals';
import type { DeploymentEvent } from './deployment.events.js';
import type { DeploymentSource } from './deployment.types.js';
import {
  createExternal,
  createGitHost,
  createInternal,
  created,
  decide,
  expectDomainError,
  given,
  INTEGRATION_ID,
  LATER,
  LISTENER_ID,
  patch,
  revisionOf,
  sealed,
  then,
  types,
  UPLOAD_PATH,
  uploadIssued,
  type PatchCommand,
} from './testing/deployment-decider.fixtures.js';

type Buildable = Exclude<DeploymentSource, 'internal_container'>;
type Section = 'source_config' | 'source_revision_config';

const gitHost = (): DeploymentEvent[] =>
  created(
    createGitHost({
      source_config: {
        integration_id: INTEGRATION_ID,
        repo_url: 'https://git.example/a/b',
        deployment_type: 'dev',
        install_command: 'npm ci',
      },
      secrets: sealed('API_KEY'),
    }),
  );
const external = (): DeploymentEvent[] =>
  created(
    createExternal({
      source_config: {
        listener_id: LISTENER_ID,
        listener_config: { cluster_namespace: 'ns' },
        custom_url: 'https://agent.example',
        resource_spec: { cpu: 1, memory_mb: 256 },
      },
    }),
  );
/** An internal_source deployment whose first revision was made from an uploaded tarball. */
const internalUploaded = (): DeploymentEvent[] =>
  then(
    [...created(createInternal()), uploadIssued()],
    patch({ source_revision_config: { source_tarball_path: UPLOAD_PATH } }),
  );

const HISTORIES: Record<Buildable, () => DeploymentEvent[]> = {
  git_host: gitHost,
  external_container: external,
  internal_source: internalUploaded,
};

function patchField(section: Section, field: string, value: unknown): PatchCommand {
  return patch({ [section]: { [field]: value } });
}

function decidePatch(history: DeploymentEvent[], command: PatchCommand): DeploymentEvent[] {
  return decide(command, given(history));
}

const SOURCES = ['git_host', 'external_container', 'internal_source'] as const;

/** Fields a PATCH may name, a value different from the stored one, and the sources they belong to. */
const FIELDS: readonly [Section, string, unknown, readonly Buildable[]][] = [
  ['source_config', 'integration_id', 'other', ['git_host']],
  ['source_config', 'repo_url', 'https://other', ['git_host']],
  ['source_config', 'build_on_push', true, ['git_host']],
  ['source_config', 'deployment_type', 'prod', ['git_host', 'internal_source']],
  ['source_config', 'custom_url', 'https://other.example', ['external_container']],
  ['source_config', 'resource_spec', { cpu: 2 }, ['external_container']],
  ['source_config', 'listener_id', 'other-listener', ['external_container']],
  ['source_config', 'listener_config', { cluster_namespace: 'other' }, ['external_container']],
  ['source_config', 'install_command', 'pnpm i', ['git_host', 'internal_source']],
  ['source_config', 'build_command', 'pnpm build', ['git_host', 'internal_source']],
  ['source_revision_config', 'repo_ref', 'develop', ['git_host']],
  ['source_revision_config', 'graph_config_path', 'x.json', ['git_host', 'internal_source']],
  ['source_revision_config', 'image_uri', 'registry.example/y:2', ['external_container']],
  ['source_revision_config', 'source_tarball_path', UPLOAD_PATH, ['internal_source']],
  ['source_revision_config', 'repo_commit_sha', 'abc', []],
];

const refusedRows = FIELDS.flatMap(([section, field, value, allowed]) =>
  SOURCES.filter((source) => !allowed.includes(source)).map(
    (source) => [section, field, source, value] as const,
  ),
);

describe('deployment decider: patch', () => {
  describe('field applicability', () => {
    it.each(refusedRows)(
      'refuses %s.%s for %s (400 naming it)',
      (section, field, source, value) => {
        const history = [...HISTORIES[source](), uploadIssued()];
        expectDomainError(
          () => decidePatch(history, patchField(section, field, value)),
          'bad_request',
          new RegExp(`^${section}\\.${field}[ .]`),
        );
      },
    );

    it('says custom_url is set by the platform for git_host', () => {
      expectDomainError(
        () => decidePatch(gitHost(), patchField('source_config', 'custom_url', 'https://x')),
        'bad_request',
        /^source_config\.custom_url is set by the platform for git_host/,
      );
    });

    it('says repo_commit_sha is read-only', () => {
      expectDomainError(
        () => decidePatch(gitHost(), patchField('source_revision_config', 'repo_commit_sha', 'a')),
        'bad_request',
        /^source_revision_config\.repo_commit_sha is read-only/,
      );
    });

    it.each(['git_host', 'internal_source'] as const)(
      'refuses a listener_config without a namespace for %s',
      (source) => {
        expectDomainError(
          () =>
            decidePatch(HISTORIES[source](), patchField('source_config', 'listener_config', {})),
          'bad_request',
          /^source_config\.listener_config is only for external_container/,
        );
      },
    );

    it.each(['git_host', 'internal_source'] as const)(
      'refuses secret_references for %s',
      (source) => {
        expectDomainError(
          () =>
            decidePatch(
              HISTORIES[source](),
              patch({ secret_references: [{ name: 'A', secret_name: 's', secret_key: 'k' }] }),
            ),
          'bad_request',
          /^secret_references is only for external_container/,
        );
      },
    );

    it.each([
      ['internal_container', /^revision_source internal_container is not supported/],
      ['external_container', /^revision_source external_container cannot be used with a git_host/],
    ] as const)('refuses revision_source %s on a git_host deployment', (source, message) => {
      expectDomainError(
        () =>
          decidePatch(
            gitHost(),
            patch({ revision_source: source, source_revision_config: { image_uri: 'x' } }),
          ),
        'bad_request',
        message,
      );
    });

    it('builds a git_host deployment from an uploaded tarball with revision_source internal_source', () => {
      const events = decidePatch(
        [...gitHost(), uploadIssued()],
        patch({
          revision_source: 'internal_source',
          source_revision_config: { source_tarball_path: UPLOAD_PATH },
        }),
      );
      expect(revisionOf(events)).toMatchObject({
        source: 'internal_source',
        source_revision_config: { repo_ref: 'main', source_tarball_path: UPLOAD_PATH },
      });
    });
  });

  describe('source_tarball_path', () => {
    it('refuses a path no upload-url was issued for', () => {
      expectDomainError(
        () =>
          decidePatch(
            created(createInternal()),
            patch({ source_revision_config: { source_tarball_path: UPLOAD_PATH } }),
          ),
        'bad_request',
        /^source_revision_config\.source_tarball_path uploads\/dep-1\/source-1\.tar\.gz was not issued/,
      );
    });

    it('refuses a path other than the issued one', () => {
      expectDomainError(
        () =>
          decidePatch(
            [...created(createInternal()), uploadIssued('uploads/dep-1/other.tar.gz')],
            patch({ source_revision_config: { source_tarball_path: UPLOAD_PATH } }),
          ),
        'bad_request',
        /^source_revision_config\.source_tarball_path .* was not issued/,
      );
    });

    it('accepts the issued path and creates the first revision', () => {
      const history = [...created(createInternal()), uploadIssued()];
      const command = patch({ source_revision_config: { source_tarball_path: UPLOAD_PATH } });
      const revision = revisionOf(decidePatch(history, command));
      expect(revision).toMatchObject({
        revision_id: command.revision_id,
        source: 'internal_source',
        trigger: 'patch',
        source_revision_config: {
          graph_config_path: 'graph.json',
          source_tarball_path: UPLOAD_PATH,
          repo_commit_sha: null,
        },
      });
    });

    it.each([
      ['graph_config_path', patch({ source_revision_config: { graph_config_path: 'x.json' } })],
      ['secrets', patch({ secrets: { sealed: [], changed: [] } })],
    ])('refuses a revision (%s) of internal_source before any tarball', (_, command) => {
      expectDomainError(
        () => decidePatch([...created(createInternal()), uploadIssued()], command),
        'bad_request',
        /^source_revision_config\.source_tarball_path is required/,
      );
    });

    it('takes graph_config_path from the PATCH that brings the first tarball', () => {
      const history = [...created(createInternal({ source_revision_config: {} })), uploadIssued()];
      const command = patch({
        source_revision_config: { source_tarball_path: UPLOAD_PATH, graph_config_path: 'x.json' },
      });
      expect(revisionOf(decidePatch(history, command)).source_revision_config).toMatchObject({
        graph_config_path: 'x.json',
        source_tarball_path: UPLOAD_PATH,
      });
    });

    it('refuses the first internal_source revision when no graph_config_path was ever given', () => {
      expectDomainError(
        () =>
          decidePatch(
            [...created(createInternal({ source_revision_config: {} })), uploadIssued()],
            patch({ source_revision_config: { source_tarball_path: UPLOAD_PATH } }),
          ),
        'bad_request',
        /^source_revision_config\.graph_config_path is required for internal_source revisions/,
      );
    });

    it('keeps the tarball of the previous revision, and its checksum', () => {
      const uploaded = then(
        [...created(createInternal()), uploadIssued()],
        patch({
          source_revision_config: { source_tarball_path: UPLOAD_PATH },
          source_tarball_sha256: 'a'.repeat(64),
        }),
      );
      const events = decidePatch(uploaded, patch({ secrets: { sealed: [], changed: [] } }));
      expect(revisionOf(events).source_revision_config.source_tarball_path).toBe(UPLOAD_PATH);
      expect(revisionOf(events).source_tarball_sha256).toBe('a'.repeat(64));
    });

    it('records the checksum of the tarball a revision is created from', () => {
      const history = [...created(createInternal()), uploadIssued()];
      const command = patch({
        source_revision_config: { source_tarball_path: UPLOAD_PATH },
        source_tarball_sha256: 'b'.repeat(64),
      });
      expect(revisionOf(decidePatch(history, command)).source_tarball_sha256).toBe('b'.repeat(64));
      expect(
        revisionOf(decidePatch(gitHost(), patch({ source_revision_config: { repo_ref: 'v2' } })))
          .source_tarball_sha256,
      ).toBeNull();
    });
  });

  describe('build_on_push and tags', () => {
    const tagged = (): DeploymentEvent[] =>
      created(
        createGitHost({
          source_config: { integration_id: INTEGRATION_ID, repo_url: 'u', build_on_push: false },
          source_revision_config: { repo_ref: 'refs/tags/v1', graph_config_path: 'g.json' },
        }),
      );
    const pushing = (): DeploymentEvent[] =>
      created(
        createGitHost({
          source_config: { integration_id: INTEGRATION_ID, repo_url: 'u', build_on_push: true },
        }),
      );

    it.each([
      [
        'build_on_push true on a tagged deployment',
        tagged,
        patchField('source_config', 'build_on_push', true),
      ],
      [
        'a tag on a deployment that builds on push',
        pushing,
        patchField('source_revision_config', 'repo_ref', 'refs/tags/v2'),
      ],
      [
        'both at once',
        gitHost,
        patch({
          source_config: { build_on_push: true },
          source_revision_config: { repo_ref: 'refs/tags/v2' },
        }),
      ],
    ])('refuses %s', (_, history, command) => {
      expectDomainError(
        () => decidePatch(history(), command),
        'bad_request',
        /^source_config\.build_on_push must be false when source_revision_config\.repo_ref is a tag/,
      );
    });

    it('accepts a tag when build_on_push is turned off in the same PATCH', () => {
      const events = decidePatch(
        pushing(),
        patch({
          source_config: { build_on_push: false },
          source_revision_config: { repo_ref: 'refs/tags/v2' },
        }),
      );
      expect(types(events)).toEqual(['DeploymentConfigChanged', 'RevisionCreated']);
    });
  });

  describe('immutable fields', () => {
    const rows: [
      string,
      () => DeploymentEvent[],
      Partial<PatchCommand>,
      Partial<PatchCommand>,
      RegExp,
    ][] = [
      ['name', gitHost, { name: 'renamed' }, { name: 'my-agent' }, /^name cannot be changed/],
      [
        'source',
        gitHost,
        { source: 'internal_source' },
        { source: 'git_host' },
        /^source cannot be changed/,
      ],
      [
        'integration_id',
        gitHost,
        { source_config: { integration_id: 'other' } },
        { source_config: { integration_id: INTEGRATION_ID } },
        /^source_config\.integration_id cannot be changed/,
      ],
      [
        'repo_url',
        gitHost,
        { source_config: { repo_url: 'https://other' } },
        { source_config: { repo_url: 'https://git.example/a/b' } },
        /^source_config\.repo_url cannot be changed/,
      ],
      [
        'deployment_type',
        gitHost,
        { source_config: { deployment_type: 'prod' } },
        { source_config: { deployment_type: 'dev' } },
        /^source_config\.deployment_type cannot be changed/,
      ],
      [
        'listener_id',
        external,
        { source_config: { listener_id: 'other' } },
        { source_config: { listener_id: LISTENER_ID } },
        /^source_config\.listener_id cannot be changed/,
      ],
      [
        'listener_config.cluster_namespace',
        external,
        { source_config: { listener_config: { cluster_namespace: 'other' } } },
        { source_config: { listener_config: { cluster_namespace: 'ns' } } },
        /^source_config\.listener_config\.cluster_namespace cannot be changed/,
      ],
    ];

    it.each(rows)('refuses a changed %s', (_, history, changed, __, message) => {
      expectDomainError(() => decidePatch(history(), patch(changed)), 'bad_request', message);
    });

    it.each(rows)('accepts the same %s without an event', (_, history, __, same) => {
      expect(decidePatch(history(), patch(same))).toEqual([]);
    });
  });

  describe('names', () => {
    it.each(['../../etc/passwd', 'a\u0000b', '..'])(
      'refuses %j as a name (422), before saying names cannot change',
      (name) => {
        expectDomainError(
          () => decidePatch(gitHost(), patch({ name })),
          'validation',
          /^name must not contain/,
        );
      },
    );
  });

  describe('what creates a revision', () => {
    it.each([
      ['repo_ref', gitHost, patchField('source_revision_config', 'repo_ref', 'develop')],
      [
        'graph_config_path',
        gitHost,
        patchField('source_revision_config', 'graph_config_path', 'x.json'),
      ],
      ['the same repo_ref', gitHost, patchField('source_revision_config', 'repo_ref', 'main')],
      [
        'image_uri',
        external,
        patchField('source_revision_config', 'image_uri', 'registry.example/y:2'),
      ],
      ['resource_spec', external, patchField('source_config', 'resource_spec', { cpu: 2 })],
      ['secrets', gitHost, patch({ secrets: { sealed: sealed('B'), changed: ['API_KEY', 'B'] } })],
      ['an empty secrets list', gitHost, patch({ secrets: { sealed: [], changed: ['API_KEY'] } })],
    ])('%s creates exactly one RevisionCreated', (_, history, command) => {
      const events = decidePatch(history(), command);
      expect(types(events)).toEqual(['RevisionCreated']);
      expect(revisionOf(events)).toMatchObject({
        revision_id: command.revision_id,
        trigger: 'patch',
      });
    });

    it('records the trigger of a push', () => {
      const command = patch({ trigger: 'push', source_revision_config: { repo_ref: 'main' } });
      expect(revisionOf(decidePatch(gitHost(), command)).trigger).toBe('push');
    });

    it.each([
      ['build_on_push', gitHost, true],
      ['install_command', gitHost, 'pnpm i'],
      ['build_command', gitHost, 'pnpm build'],
      ['install_command', internalUploaded, 'yarn'],
      ['custom_url', external, 'https://other.example'],
    ] as const)('%s alone changes the config without a revision', (field, history, value) => {
      expect(decidePatch(history(), patchField('source_config', field, value))).toEqual([
        {
          type: 'DeploymentConfigChanged',
          data: { source_config: { [field]: value }, updated_at: LATER },
        },
      ]);
    });

    it('names only the changed fields', () => {
      const events = decidePatch(
        gitHost(),
        patch({
          source_config: { install_command: 'npm ci', build_command: 'make', build_on_push: false },
        }),
      );
      expect(events).toEqual([
        {
          type: 'DeploymentConfigChanged',
          data: { source_config: { build_command: 'make' }, updated_at: LATER },
        },
      ]);
    });

    it.each([
      [
        'unchanged values',
        gitHost,
        patch({ source_config: { install_command: 'npm ci', build_on_push: false } }),
      ],
      ['an all-null body', gitHost, patch()],
      ['empty objects', gitHost, patch({ source_config: {}, source_revision_config: {} })],
      [
        'null fields',
        external,
        patch({
          source_config: { custom_url: null, resource_spec: null },
          source_revision_config: { image_uri: null },
        }),
      ],
      [
        'unchanged secret_references',
        () => then(external(), patch({ secret_references: [] })),
        patch({ secret_references: [] }),
      ],
    ])('%s give no event', (_, history, command) => {
      expect(decidePatch(history(), command)).toEqual([]);
    });

    it('changes secret_references without a revision', () => {
      const references = [{ name: 'TOKEN', secret_name: 's', secret_key: 'k' }];
      const history = then(external(), patch({ secret_references: references }));
      expect(given(history).secret_references).toEqual(references);
      expect(types(history).slice(-1)).toEqual(['DeploymentConfigChanged']);
    });

    it('gives the config change before the revision', () => {
      const events = decidePatch(
        gitHost(),
        patch({
          source_config: { build_command: 'make' },
          source_revision_config: { repo_ref: 'dev' },
        }),
      );
      expect(types(events)).toEqual(['DeploymentConfigChanged', 'RevisionCreated']);
    });
  });

  describe('the new revision', () => {
    it('overlays the previous source_revision_config with the given fields and resets repo_commit_sha', () => {
      const history = then(gitHost(), {
        kind: 'source_resolved',
        revision_id: 'rev-1',
        repo_commit_sha: 'abc',
        commits_since: null,
        now: LATER,
      });
      expect(given(history).source_revision_config.repo_commit_sha).toBe('abc');
      const events = decidePatch(
        history,
        patch({ source_revision_config: { repo_ref: 'develop', graph_config_path: null } }),
      );
      expect(revisionOf(events).source_revision_config).toEqual({
        repo_ref: 'develop',
        graph_config_path: 'graph.json',
        image_uri: null,
        source_tarball_path: null,
        repo_commit_sha: null,
      });
    });

    it('carries the secrets over when none are given', () => {
      const revision = revisionOf(
        decidePatch(gitHost(), patchField('source_revision_config', 'repo_ref', 'x')),
      );
      expect(revision.secrets).toEqual(sealed('API_KEY'));
      expect(revision.secrets_changed).toEqual([]);
    });

    it('takes the given secrets and their changed names', () => {
      const command = patch({ secrets: { sealed: sealed('B'), changed: ['API_KEY', 'B'] } });
      const history = then(gitHost(), command);
      expect(revisionOf(history.slice(2))).toMatchObject({
        secrets: sealed('B'),
        secrets_changed: ['API_KEY', 'B'],
      });
      expect(given(history).secrets).toEqual(sealed('B'));
    });

    it.each([
      [['bad-name'], /^secrets: "bad-name" is not a valid/],
      [['BERTH_X'], /^secrets: "BERTH_X" is reserved/],
      [['DATABASE_URL'], /^secrets: "DATABASE_URL" is reserved/],
      [['A', 'A'], /^secrets: "A" is given more than once/],
    ])('refuses secrets %j', (names, message) => {
      expectDomainError(
        () =>
          decidePatch(gitHost(), patch({ secrets: { sealed: sealed(...names), changed: names } })),
        'bad_request',
        message,
      );
    });

    it('keeps the stored resource_spec when none is given', () => {
      const history = external();
      const events = decidePatch(
        history,
        patchField('source_revision_config', 'image_uri', 'img:2'),
      );
      expect(revisionOf(events).resource_spec).toEqual(given(history).source_config.resource_spec);
      expect(revisionOf(events).resource_spec?.cpu_limit).toBe(2);
    });

    it('replaces the resource_spec with the resolved given one', () => {
      const history = then(
        external(),
        patchField('source_config', 'resource_spec', { cpu: 0.25, cache_memory_mb: 128 }),
      );
      const spec = given(history).source_config.resource_spec;
      expect(spec).toMatchObject({
        cpu: 0.3,
        cpu_limit: 0.6,
        queue_cpu: 0.3,
        queue_cpu_limit: 0.6,
        memory_mb: null,
        memory_limit_mb: null,
        cache_memory_limit_mb: 128,
      });
    });

    it('refuses a resolved resource_spec with a limit below its request', () => {
      expectDomainError(
        () =>
          decidePatch(
            external(),
            patchField('source_config', 'resource_spec', { memory_mb: 512, memory_limit_mb: 128 }),
          ),
        'bad_request',
        /^source_config\.resource_spec\.memory_limit_mb: /,
      );
    });
  });

  it('refuses a PATCH while the deployment is being deleted (409)', () => {
    const history = then(gitHost(), {
      kind: 'delete',
      deployment_id: 'dep-1',
      tenant_id: 'tenant-a',
      now: LATER,
    });
    expectDomainError(
      () => decidePatch(history, patchField('source_config', 'build_command', 'x')),
      'conflict',
      /being deleted/,
    );
  });
});
