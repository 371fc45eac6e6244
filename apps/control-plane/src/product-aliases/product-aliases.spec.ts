import { describe, expect, it } from '@jest/globals';
import { canonicalizeAliases } from './product-aliases.js';

describe('product-named aliases', () => {
  it('renames langgraph_config_path to graph_config_path', () => {
    const { body, conflicts } = canonicalizeAliases({
      name: 'a',
      source_revision_config: { langgraph_config_path: 'langgraph.json', source_tarball_path: 'p' },
    });
    expect(conflicts).toEqual([]);
    expect(body).toEqual({
      name: 'a',
      source_revision_config: { graph_config_path: 'langgraph.json', source_tarball_path: 'p' },
    });
  });

  it('renames k8s_namespace in the listener configuration to cluster_namespace', () => {
    const { body } = canonicalizeAliases({
      source_config: { listener_config: { k8s_namespace: 'ns' } },
    });
    expect(body).toEqual({ source_config: { listener_config: { cluster_namespace: 'ns' } } });
  });

  it.each([
    ['github', 'git_host'],
    ['internal_docker', 'internal_container'],
    ['external_docker', 'external_container'],
  ])('answers the source value %s as %s', (alias, name) => {
    expect(canonicalizeAliases({ source: alias, revision_source: alias }).body).toEqual({
      source: name,
      revision_source: name,
    });
  });

  it('answers the compute type kubernetes as cluster', () => {
    expect(canonicalizeAliases({ name: 'k', compute_type: 'kubernetes' }).body).toEqual({
      name: 'k',
      compute_type: 'cluster',
    });
  });

  it('leaves the interface names and unknown values alone', () => {
    const input = {
      source: 'internal_source',
      source_revision_config: { graph_config_path: 'g.json' },
      revision_source: 'nonsense',
    };
    expect(canonicalizeAliases(input)).toEqual({ body: input, conflicts: [] });
  });

  it('accepts both names with the same value', () => {
    const { body, conflicts } = canonicalizeAliases({
      source_revision_config: { graph_config_path: 'g.json', langgraph_config_path: 'g.json' },
    });
    expect(conflicts).toEqual([]);
    expect(body).toEqual({ source_revision_config: { graph_config_path: 'g.json' } });
  });

  it('reports both names with different values as a conflict', () => {
    const { conflicts } = canonicalizeAliases({
      source_revision_config: { graph_config_path: 'g.json', langgraph_config_path: 'other.json' },
    });
    expect(conflicts).toEqual([
      expect.objectContaining({
        loc: ['body', 'source_revision_config', 'langgraph_config_path'],
      }),
    ]);
  });

  it('does not change the body it was given', () => {
    const input = { source_revision_config: { langgraph_config_path: 'g.json' } };
    canonicalizeAliases(input);
    expect(input).toEqual({ source_revision_config: { langgraph_config_path: 'g.json' } });
  });

  it('passes bodies that are not objects through', () => {
    expect(canonicalizeAliases(null)).toEqual({ body: null, conflicts: [] });
  });
});
