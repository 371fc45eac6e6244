import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, resolve, sep } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { freePort } from '../../support/free-port.js';
import { chromiumPath, launchChromium, screenshot } from '../../support/browser.js';
import { runtimeSuite } from '../../support/runtime-suite.js';
import { buildUseStreamPage } from '../../support/use-stream-page.js';

const CHROMIUM = chromiumPath();
const ARTIFACTS = 'use-stream';
const ANSWER = 'Here is what I found: It is 21°C and sunny in Oslo. (answered by fake-tool-caller)';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** A static server for `dir` on a port of its own: another origin than the runtime's. */
async function serveDir(dir: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://page').pathname;
    const file = resolve(dir, `.${path === '/' ? '/index.html' : path}`);
    if (!file.startsWith(dir + sep)) {
      response.writeHead(403).end();
      return;
    }
    stat(file).then(
      () => {
        response.writeHead(200, {
          'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
        });
        createReadStream(file).pipe(response);
      },
      () => response.writeHead(404).end(),
    );
  });
  const port = await freePort();
  await new Promise<void>((done) => server.listen(port, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => {
          done();
        });
      }),
  };
}

/** `@langchain/react`'s `useStream` in a real Chromium, against a real runtime on another origin. */
const suite = CHROMIUM ? describe : describe.skip;

if (!CHROMIUM) {
  if (process.env.CI === 'true') {
    // CI installs Chromium (.ci/run); without it this suite would pass by proving nothing.
    throw new Error('Chromium is not installed: apt-get install chromium (or set BERTH_CHROMIUM)');
  }
  describe('useStream in a browser', () => {
    it.skip('skipped: no Chromium on this machine (apt-get install chromium, or set BERTH_CHROMIUM)', () => {});
  });
  console.warn('The useStream browser tests were skipped: no Chromium on this machine.');
}

suite('useStream in a browser', () => {
  let workDir: string;
  let site: { url: string; close: () => Promise<void> };
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  /** What the page asked the runtime for: method and path. */
  const requests: string[] = [];

  // Before the runtime's hooks, so the browser closes (and its streams end) before it stops.
  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'berth-use-stream-'));
    const [, launched] = await Promise.all([
      buildUseStreamPage(join(workDir, 'page'), join(workDir, 'vite-cache')),
      launchChromium(CHROMIUM ?? ''),
    ]);
    browser = launched;
    site = await serveDir(join(workDir, 'page'));
    page = await browser.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('websocket', (socket) => {
      sockets.push(socket.url());
      socket.on('socketerror', (error) => socketErrors.push(error));
    });
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.origin !== site.url) requests.push(`${request.method()} ${url.pathname}`);
    });
  }, 60_000);

  afterAll(async () => {
    await browser.close();
    await site.close();
    await rm(workDir, { recursive: true, force: true });
  });

  const runtime = runtimeSuite('use_stream_browser');

  /** The page for `assistant` on the runtime, with its key (and how to stream: `transport`, ...). */
  const pageUrl = (assistant: string, more: Record<string, string> = {}): string => {
    const query = new URLSearchParams({
      api: runtime.runtime.url,
      key: runtime.runtime.apiKey,
      assistant,
      ...more,
    });
    return `${site.url}/?${query.toString()}`;
  };

  /** The WebSockets the page opens to the runtime, by URL, and why any failed. */
  const sockets: string[] = [];
  const socketErrors: string[] = [];

  const threadOf = (shown: Page): string => new URL(shown.url()).searchParams.get('thread') ?? '';

  it('sends a message and shows the streamed reply', async () => {
    await page.goto(pageUrl('agent'));
    await page.getByRole('button', { name: 'Send' }).click();
    const messages = page.getByRole('list', { name: 'Messages' });
    await messages.locator('li[data-type="ai"]', { hasText: ANSWER }).waitFor();
    await page.locator('[data-testid="status"][data-loading="false"]').waitFor();
    expect(await messages.locator('li[data-type="human"]').allTextContents()).toEqual([
      'Weather in Oslo?',
    ]);
    await screenshot(page, ARTIFACTS, 'reply');
    const threadId = threadOf(page);
    const state = await runtime.client.threads.getState<{ messages: { content: unknown }[] }>(
      threadId,
    );
    expect(state.values.messages.at(-1)?.content).toBe(ANSWER);
    // Thread streaming v2 from another origin (CORS preflights aside): a command, event streams.
    const asked = requests.filter((request) => !request.startsWith('OPTIONS '));
    expect(asked).toContain(`POST /threads/${threadId}/commands`);
    expect(asked).toContain(`POST /threads/${threadId}/stream/events`);
    expect(asked.filter((request) => request.includes('/runs'))).toEqual([]);
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });

  it('streams a run to its end over a WebSocket, opened with a browser ticket the key bought', async () => {
    requests.length = 0;
    sockets.length = 0;
    await page.goto(pageUrl('agent', { transport: 'websocket' }));
    await page.getByRole('button', { name: 'Send' }).click();
    const messages = page.getByRole('list', { name: 'Messages' });
    await messages.locator('li[data-type="ai"]', { hasText: ANSWER }).waitFor();
    await page.locator('[data-testid="status"][data-loading="false"]').waitFor();
    await screenshot(page, ARTIFACTS, 'websocket-reply');
    const threadId = threadOf(page);
    expect(threadId).not.toBe('');
    const state = await runtime.client.threads.getState<{ messages: { content: unknown }[] }>(
      threadId,
    );
    expect(state.values.messages.at(-1)?.content).toBe(ANSWER);
    // The commands and events went over the thread's socket; HTTP only bought the ticket.
    const wsBase = runtime.runtime.url.replace('http', 'ws');
    expect(sockets).toEqual([`${wsBase}/threads/${threadId}/stream/events`]);
    const asked = requests.filter((request) => !request.startsWith('OPTIONS '));
    expect(asked).toEqual(['POST /stream/tickets']);
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });

  it('gets no WebSocket with a ticket that is none, and says so', async () => {
    const threadsBefore = await runtime.client.threads.search({ limit: 1000 });
    await page.goto(pageUrl('agent', { transport: 'websocket', ticket: 'not-a-ticket' }));
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('alert').waitFor();
    await screenshot(page, ARTIFACTS, 'websocket-refused');
    expect(await page.getByRole('alert').textContent()).toMatch(/WebSocket/);
    // Chromium's words for the upgrade's 401.
    expect(socketErrors.join('\n')).toMatch(/HTTP Authentication failed/);
    expect(await runtime.client.threads.search({ limit: 1000 })).toHaveLength(threadsBefore.length);
    pageErrors.length = 0;
  });

  it('rejoins a run still going after the page is reloaded, and sees it finish', async () => {
    await page.goto(pageUrl('custom'));
    await page.getByRole('button', { name: 'Count slowly' }).click();
    const progress = page.getByTestId('progress');
    await progress.getByText(/^([3-9]|1\d)\/40$/).waitFor();
    const threadId = threadOf(page);
    expect(threadId).not.toBe('');
    await page.reload();
    // The reloaded page is on the same thread, and sees the run while it still goes.
    expect(threadOf(page)).toBe(threadId);
    await page.locator('[data-testid="status"][data-loading="true"]').waitFor();
    await progress.getByText(/^([1-9]|[1-3]\d)\/40$/).waitFor();
    await screenshot(page, ARTIFACTS, 'rejoined');
    await page.getByTestId('result').getByText('The sum of 1..40 is 820.').waitFor();
    await page.locator('[data-testid="status"][data-loading="false"]').waitFor();
    await progress.getByText('40/40').waitFor();
    await screenshot(page, ARTIFACTS, 'finished');
    // Rejoined, not started again.
    const runs = await runtime.client.runs.list(threadId);
    expect(runs.map((run) => run.status)).toEqual(['success']);
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
