import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { bundleUi, type UiFile } from './ui-bundler.js';

const APP = resolve('test/fixtures/ui-app');

const textOf = (files: readonly UiFile[], name: string): string =>
  new TextDecoder().decode(files.find((file) => file.name === name)?.contents);

describe('bundleUi', () => {
  let outside: string;

  beforeAll(async () => {
    outside = await mkdtemp(join(tmpdir(), 'berth-ui-outside-'));
  });

  afterAll(async () => {
    await rm(join(APP, 'agent', 'linked-out.tsx'), { force: true });
    await rm(outside, { recursive: true, force: true });
  });

  it("bundles the components into the agent's global, asking the page for React and the shared packages", async () => {
    const files = await bundleUi({
      agent: 'agent-alias',
      componentFile: join(APP, 'agent/ui.tsx'),
      appDir: APP,
      shared: ['shared-widgets'],
    });
    expect(files.map((file) => file.name).sort()).toEqual(['entrypoint.css', 'entrypoint.js']);
    const script = textOf(files, 'entrypoint.js');
    expect(script).toMatch(/^var __LGUI_agent_alias = \(\(\) => \{/);
    expect(script).toContain('"weather-component": WeatherComponent');
    for (const name of ['react', 'react/jsx-runtime', 'shared-widgets']) {
      expect(script).toContain(`globalThis[Symbol.for("LGUI_REQUIRE")](${JSON.stringify(name)})`);
    }
    expect(script).not.toContain('useSyncExternalStore');
    expect(textOf(files, 'entrypoint.css')).toContain('color: rgb(12, 34, 56)');
  });

  it('says what is wrong with a module that does not export its components by default', async () => {
    await expect(
      bundleUi({
        agent: 'no-default',
        componentFile: join(APP, 'no-default/ui.tsx'),
        appDir: APP,
        shared: [],
      }),
    ).rejects.toThrow(
      'No matching export in "no-default/ui.tsx" for import "default": the module must export by default an object of its components by name',
    );
  });

  it('says where an import cannot be resolved, relative to the application', async () => {
    await expect(
      bundleUi({ agent: 'a', componentFile: join(APP, 'agent/ui.tsx'), appDir: APP, shared: [] }),
    ).rejects.toThrow(/^agent\/ui\.tsx:2:26: Could not resolve "shared-widgets"/);
  });

  it('refuses a component module outside the application, through a link too', async () => {
    await expect(
      bundleUi({
        agent: 'a',
        componentFile: resolve(APP, '../compat-app/src/greeter.ts'),
        appDir: APP,
        shared: [],
      }),
    ).rejects.toThrow(/is outside the application's directory/);
    await symlink(join(APP, 'agent/ui.tsx'), join(outside, 'ui.tsx'));
    await symlink(join(outside, 'ui.tsx'), join(APP, 'agent', 'linked-out.tsx'));
    // A link inside the application to a link outside it to a file inside it: what counts is
    // where the file really is.
    await expect(
      bundleUi({
        agent: 'a',
        componentFile: join(APP, 'agent', 'linked-out.tsx'),
        appDir: APP,
        shared: ['shared-widgets'],
      }),
    ).resolves.toHaveLength(2);
    await symlink(resolve(APP, '../compat-app/src/greeter.ts'), join(outside, 'greeter.ts'));
    await rm(join(APP, 'agent', 'linked-out.tsx'));
    await symlink(join(outside, 'greeter.ts'), join(APP, 'agent', 'linked-out.tsx'));
    await expect(
      bundleUi({
        agent: 'a',
        componentFile: join(APP, 'agent', 'linked-out.tsx'),
        appDir: APP,
        shared: [],
      }),
    ).rejects.toThrow(/is outside the application's directory/);
  });

  it('says so when the component module does not exist', async () => {
    await expect(
      bundleUi({ agent: 'a', componentFile: join(APP, 'missing.tsx'), appDir: APP, shared: [] }),
    ).rejects.toThrow(`${join(APP, 'missing.tsx')} does not exist`);
  });
});
