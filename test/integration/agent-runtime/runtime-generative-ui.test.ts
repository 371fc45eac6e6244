import { describe, expect, it } from '@jest/globals';
import { resolve } from 'node:path';
import { createElement, type ComponentType } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { runtimeSuite } from '../../support/runtime-suite.js';

const UI_APP = resolve('test/fixtures/ui-app/langgraph.json');
const SHADOW_ROOT_ID = 'child-shadow-r1';

/** The little of a DOM node this test touches (the project's types have no DOM). */
interface PageNode {
  readonly parentNode: PageNode | null;
  readonly constructor: { readonly name: string };
  appendChild(node: unknown): unknown;
  attachShadow(init: { mode: 'open' }): PageNode;
  querySelectorAll(selector: string): Iterable<PageElement>;
}

interface PageElement extends PageNode {
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
}

interface PageWindow {
  readonly document: {
    readonly body: PageNode;
    getElementById(id: string): PageNode | null;
    createElement(tag: string): PageElement;
    createRange(): { createContextualFragment(html: string): unknown };
  };
  close(): void;
}

/** jsdom, imported by a name the type checker does not follow: its types bring in the DOM's. */
interface Jsdom {
  VirtualConsole: new () => { on(event: 'jsdomError', listener: (error: Error) => void): void };
  JSDOM: new (html: string, options: Record<string, unknown>) => { window: PageWindow };
}
const JSDOM_MODULE = 'jsdom';

interface Rendered {
  readonly comp: ComponentType<{ city: string }>;
  readonly target: PageNode;
}

interface ComponentStore {
  getBoundStore(id: string): {
    subscribe(onChange: () => void): () => void;
    getSnapshot(): Rendered | undefined;
  };
}

/**
 * What a page with `LoadExternalComponent` does with the markup, in jsdom (which loads and runs
 * scripts): the SDK's react-ui imported in the page (it sets the page's context up), a shared
 * package given with `experimental_loadShare`, the markup put in a shadow root; then the
 * component the bundle hands to the page's store. jsdom runs no script that a fragment or a
 * shadow root brings, as a browser does: each is added again to the body, as it is.
 */
async function loadInPage(markup: string): Promise<Rendered> {
  const { JSDOM, VirtualConsole } = (await import(JSDOM_MODULE)) as Jsdom;
  let failed: (error: Error) => void = () => undefined;
  const virtualConsole = new VirtualConsole();
  // A script that does not load or throws: the page says so, and the component never comes.
  virtualConsole.on('jsdomError', (error) => {
    failed(error);
  });
  const dom = new JSDOM(`<!doctype html><body><div id="${SHADOW_ROOT_ID}"></div></body>`, {
    url: 'http://page.example/',
    runScripts: 'dangerously',
    resources: 'usable',
    virtualConsole,
  });
  const global = globalThis as { window?: unknown };
  global.window = dom.window;
  try {
    const { experimental_loadShare } = await import('@langchain/langgraph-sdk/react-ui');
    experimental_loadShare('shared-widgets', {
      unitLabel: (unit: string) => (unit === 'celsius' ? '°C' : unit),
    });
    const store = (dom.window as unknown as Record<symbol, ComponentStore | undefined>)[
      Symbol.for('LGUI_EXT_STORE')
    ];
    if (!store) throw new Error("The SDK's react-ui did not set the page's component store up");
    const bound = store.getBoundStore(SHADOW_ROOT_ID);
    const rendered = new Promise<Rendered>((done, fail) => {
      failed = fail;
      bound.subscribe(() => {
        const snapshot = bound.getSnapshot();
        if (snapshot) done(snapshot);
      });
    });
    const { document } = dom.window;
    const root = document.getElementById(SHADOW_ROOT_ID)?.attachShadow({ mode: 'open' });
    root?.appendChild(
      document
        .createRange()
        .createContextualFragment(markup.replace('{{shadowRootId}}', SHADOW_ROOT_ID)),
    );
    for (const script of root?.querySelectorAll('script') ?? []) {
      const runnable = document.createElement('script');
      for (const name of ['src', 'onload']) {
        runnable.setAttribute(name, script.getAttribute(name) ?? '');
      }
      document.body.appendChild(runnable);
    }
    return await rendered;
  } finally {
    delete global.window;
    dom.window.close();
  }
}

describe('generative UI (ui of langgraph.json) for LoadExternalComponent', () => {
  const suite = runtimeSuite('runtime_generative_ui', { maxRetries: 0 }, { graphConfig: UI_APP });
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${suite.runtime.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const withKey = () => ({ 'x-api-key': suite.runtime.apiKey });

  it("answers the SDK's UI client with the agent's style and script tags, whose files load without a key", async () => {
    const markup = await suite.client['~ui'].getComponent('agent-alias', 'weather-component');
    const base = `http://127.0.0.1:${suite.runtime.port}/ui/agent-alias`;
    expect(markup).toBe(
      [
        `<link rel="stylesheet" href="${base}/entrypoint.css" />`,
        `<script src="${base}/entrypoint.js" onload='__LGUI_agent_alias.render("weather-component", "{{shadowRootId}}")'></script>`,
      ].join('\n'),
    );
    const script = await fetch(`${base}/entrypoint.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const js = await script.text();
    expect(js).toContain('var __LGUI_agent_alias = ');
    expect(js).toContain('globalThis[Symbol.for("LGUI_REQUIRE")]("react")');
    expect(js).toContain('"weather-component": WeatherComponent');
    const styles = await fetch(`${base}/entrypoint.css`);
    expect(styles.status).toBe(200);
    expect(styles.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(await styles.text()).toContain('color: rgb(12, 34, 56)');
  });

  it('renders the component in a page through the SDK’s react-ui context', async () => {
    const markup = await suite.client['~ui'].getComponent('agent-alias', 'weather-component');
    const { comp, target } = await loadInPage(markup);
    expect(target.parentNode?.constructor.name).toBe('ShadowRoot');
    expect(renderToStaticMarkup(createElement(comp, { city: 'Oslo' }))).toBe(
      '<div class="weather">Weather for Oslo in °C</div>',
    );
  });

  it('answers 404 with a detail for an agent without UI and for a file the bundle has not', async () => {
    const unknown = await post('/ui/no-such-agent', { name: 'x' }, withKey());
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      detail: 'No UI for agent "no-such-agent": langgraph.json has no ui.no-such-agent',
    });
    await expect(suite.client['~ui'].getComponent('no-such-agent', 'x')).rejects.toThrow();
    const file = await fetch(`${suite.runtime.url}/ui/agent-alias/other.js`);
    expect(file.status).toBe(404);
    expect(await file.json()).toEqual({
      detail: 'The UI of agent "agent-alias" has no file "other.js"',
    });
  });

  it('answers 503 saying why for an agent whose components did not bundle, and logs it', async () => {
    const noDefault = await post('/ui/no-default', { name: 'x' }, withKey());
    expect(noDefault.status).toBe(503);
    expect(await noDefault.json()).toEqual({
      detail: expect.stringContaining(
        'The UI of agent "no-default" is not served: No matching export in "no-default/ui.tsx" for import "default"',
      ) as unknown,
    });
    const outside = await fetch(`${suite.runtime.url}/ui/outside/entrypoint.js`);
    expect(outside.status).toBe(503);
    expect(await outside.json()).toEqual({
      detail: expect.stringMatching(/outside the application's directory/) as unknown,
    });
    await suite.runtime.printed('the UI of agent "no-default" is not served');
    await suite.runtime.printed('the UI of agent "outside" is not served');
  });

  it('asks for the key (or the application’s auth) to say which files to load, and for a name', async () => {
    const anonymous = await post('/ui/agent-alias', { name: 'weather-component' });
    expect(anonymous.status).toBe(401);
    const nameless = await post('/ui/agent-alias', {}, withKey());
    expect(nameless.status).toBe(422);
  });
});
