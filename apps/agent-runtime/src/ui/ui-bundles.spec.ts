import { describe, expect, it } from '@jest/globals';
import type { UiBundleRequest, UiFile } from './ui-bundler.js';
import { clashingAgents, UiBundles } from './ui-bundles.js';
import type { UiSection } from './ui-section.js';

const file = (text: string): UiFile => ({
  name: 'entrypoint.js',
  contents: new TextEncoder().encode(text),
});

/** A bundler whose answers the test sets per component file: text, or an Error to fail with. */
function fakeBundler(answers: Map<string, string | Error>) {
  const asked: UiBundleRequest[] = [];
  const bundle = (request: UiBundleRequest): Promise<UiFile[]> => {
    asked.push(request);
    const answer = answers.get(request.componentFile);
    return answer instanceof Error || answer === undefined
      ? Promise.reject(answer ?? new Error('no answer'))
      : Promise.resolve([file(answer)]);
  };
  return { bundle, asked };
}

const section = (components: Record<string, string>, shared: string[] = []): UiSection => ({
  components: new Map(Object.entries(components)),
  shared,
});

const textOf = async (bundles: UiBundles, agent: string): Promise<string | undefined> => {
  const bundle = await bundles.find(agent);
  return bundle?.files ? new TextDecoder().decode(bundle.files[0]?.contents) : bundle?.problem;
};

describe('UiBundles', () => {
  it('bundles each agent with the shared packages; a failing agent answers why, the others are served', async () => {
    const answers = new Map<string, string | Error>([
      ['/app/a.tsx', 'a v1'],
      ['/app/b.tsx', new Error('b.tsx:1:1: Unexpected "}"')],
    ]);
    const { bundle, asked } = fakeBundler(answers);
    const bundles = new UiBundles(bundle);
    const problems = await bundles.load(
      section({ a: '/app/a.tsx', b: '/app/b.tsx' }, ['clsx']),
      '/app',
    );
    expect(problems).toEqual(['the UI of agent "b" is not served: b.tsx:1:1: Unexpected "}"']);
    expect(await textOf(bundles, 'a')).toBe('a v1');
    expect(await textOf(bundles, 'b')).toBe('b.tsx:1:1: Unexpected "}"');
    expect(bundles.find('c')).toBeUndefined();
    expect(asked.map(({ agent, appDir, shared }) => [agent, appDir, shared])).toEqual([
      ['a', '/app', ['clsx']],
      ['b', '/app', ['clsx']],
    ]);
  });

  it('after a reload, serves the new bundles, keeps the last good one of an agent that fails, and drops removed agents', async () => {
    const answers = new Map<string, string | Error>([
      ['/app/a.tsx', 'a v1'],
      ['/app/b.tsx', 'b v1'],
    ]);
    const bundles = new UiBundles(fakeBundler(answers).bundle);
    await bundles.load(section({ a: '/app/a.tsx', b: '/app/b.tsx' }), '/app');
    answers.set('/app/a.tsx', new Error('syntax error'));
    answers.set('/app/c.tsx', 'c v1');
    const problems = await bundles.load(section({ a: '/app/a.tsx', c: '/app/c.tsx' }), '/app');
    expect(problems).toEqual([
      'the UI of agent "a" is not served anew (its bundle before is): syntax error',
    ]);
    expect(await textOf(bundles, 'a')).toBe('a v1');
    expect(await textOf(bundles, 'c')).toBe('c v1');
    expect(bundles.find('b')).toBeUndefined();
  });

  it('refuses an agent whose global would be the same as an earlier one', async () => {
    const answers = new Map<string, string | Error>([
      ['/app/1.tsx', 'one'],
      ['/app/2.tsx', 'two'],
    ]);
    const bundles = new UiBundles(fakeBundler(answers).bundle);
    const problems = await bundles.load(
      section({ 'a-b': '/app/1.tsx', a_b: '/app/2.tsx' }),
      '/app',
    );
    expect(problems).toEqual([
      'the UI of agent "a_b" is not served: agent "a_b" and agent "a-b" would both define __LGUI_a_b: rename one',
    ]);
    expect(await textOf(bundles, 'a-b')).toBe('one');
  });

  it('has nothing to serve for an application without ui', async () => {
    const bundles = new UiBundles(fakeBundler(new Map()).bundle);
    expect(await bundles.load(undefined, '/app')).toEqual([]);
    expect(bundles.find('agent')).toBeUndefined();
  });
});

describe('clashingAgents', () => {
  it('names each later agent with the earlier one it clashes with', () => {
    expect([...clashingAgents(['a-b', 'a.b', 'c', 'a_b'])]).toEqual([
      ['a.b', 'a-b'],
      ['a_b', 'a-b'],
    ]);
  });
});
