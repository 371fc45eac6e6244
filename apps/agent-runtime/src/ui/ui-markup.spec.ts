import { describe, expect, it } from '@jest/globals';
import { assetOrigin, componentMarkup, contentTypeOf } from './ui-markup.js';

describe('componentMarkup', () => {
  it("is the agent's styles, then its script rendering the component on load", () => {
    expect(
      componentMarkup({
        agent: 'agent-alias',
        name: 'weather-component',
        host: 'localhost:2024',
        files: ['entrypoint.js', 'entrypoint.css'],
      }),
    ).toBe(
      [
        '<link rel="stylesheet" href="http://localhost:2024/ui/agent-alias/entrypoint.css" />',
        `<script src="http://localhost:2024/ui/agent-alias/entrypoint.js" onload='__LGUI_agent_alias.render("weather-component", "{{shadowRootId}}")'></script>`,
      ].join('\n'),
    );
  });

  it('cannot be broken out of by the component name or the agent', () => {
    const markup = componentMarkup({
      agent: 'a"b',
      name: `x'><img src=y onerror=alert(1)>`,
      host: 'example.com',
      files: ['entrypoint.js'],
    });
    expect(markup).toBe(
      `<script src="//example.com/ui/a%22b/entrypoint.js" onload='__LGUI_a_b.render("x&#39;><img src=y onerror=alert(1)>", "{{shadowRootId}}")'></script>`,
    );
  });
});

describe('assetOrigin', () => {
  it.each([
    ['localhost:2024', 'http://localhost:2024'],
    ['localhost', 'http://localhost'],
    ['127.0.0.1:8123', 'http://127.0.0.1:8123'],
    ['[::1]:8123', 'http://[::1]:8123'],
    ['agents.example.com', '//agents.example.com'],
    ['localhost.example.com:443', '//localhost.example.com:443'],
  ])('%s is %s', (host, origin) => {
    expect(assetOrigin(host)).toBe(origin);
  });
});

describe('contentTypeOf', () => {
  it('serves scripts and styles as such, anything unknown as bytes', () => {
    expect(contentTypeOf('entrypoint.js')).toBe('text/javascript; charset=utf-8');
    expect(contentTypeOf('entrypoint.css')).toBe('text/css; charset=utf-8');
    expect(contentTypeOf('logo-X1.PNG')).toBe('image/png');
    expect(contentTypeOf('data.bin')).toBe('application/octet-stream');
  });
});
