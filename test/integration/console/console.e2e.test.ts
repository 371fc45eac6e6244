import { cp as copy, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Client } from '@langchain/langgraph-sdk';
import type { Browser, Locator, Page } from 'playwright-core';
import {
  OTHER_TENANT_KEY,
  TEST_TENANT_ID,
  startControlPlane,
  type ControlPlaneProcess,
} from '../../support/control-plane-process.js';
import { chromiumPath, fitsWidth, launchChromium, screenshot } from '../../support/browser.js';
import {
  createSourceDeployment,
  EXAMPLE_APP_DIR,
  packExample,
  patchSource,
  waitForRevision,
  type Deployment,
} from '../../support/deployment-flow.js';
import { startSwitchableProxy, type SwitchableProxy } from '../../support/switchable-proxy.js';
import { currentLinks, lineCount, tableLayoutProblems } from '../../support/layout-checks.js';
import { packDirectory } from '#libs/source-archive';
import { runtimeSuite } from '../../support/runtime-suite.js';

const CHROMIUM = chromiumPath();
const SECRET_VALUE = 'sk-console-e2e-9f8e7d6c5b4a';
const ARTIFACTS = 'console';

/** The console in a real Chromium, against a real control plane that deploys the example app. */
const suite = CHROMIUM ? describe : describe.skip;

if (!CHROMIUM) {
  if (process.env.CI === 'true') {
    // CI installs Chromium (.ci/run); without it this suite would pass by proving nothing.
    throw new Error('Chromium is not installed: apt-get install chromium (or set BERTH_CHROMIUM)');
  }
  describe('web console in a browser', () => {
    it.skip('skipped: no Chromium on this machine (apt-get install chromium, or set BERTH_CHROMIUM)', () => {});
  });
  console.warn('The console end-to-end tests were skipped: no Chromium on this machine.');
}

suite('web console in a browser', () => {
  let cp: ControlPlaneProcess;
  let proxy: SwitchableProxy;
  let browser: Browser;
  let page: Page;
  let deployment: Deployment;
  let firstRevision: string;
  let streamedRun: { thread: string; run: string };
  const pageErrors: string[] = [];
  // A runtime of its own for a graph whose interrupts say what their answers must be.
  const reviewRuntime = runtimeSuite('console-review', undefined, {
    graphConfig: resolve('test/fixtures/console-app/langgraph.json'),
  });

  const runtimeUrl = (): string => `${cp.url}/v2/deployments/${deployment.id}/runtime`;
  const sdk = (key = cp.apiKey): Client => new Client({ apiUrl: runtimeUrl(), apiKey: key });

  beforeAll(async () => {
    cp = await startControlPlane();
    proxy = await startSwitchableProxy(cp.port);
    browser = await launchChromium(CHROMIUM ?? '');
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (error) => pageErrors.push(error.message));
  }, 120_000);

  afterAll(async () => {
    await browser.close();
    await proxy.close();
    await cp.dispose();
  });

  it('refuses a wrong key with the API detail, and signs in with the keyboard', async () => {
    await page.goto(`${proxy.url}/`);
    const key = page.getByLabel(/API key/);
    await key.fill('not-a-key');
    await key.press('Enter');
    await page.getByRole('alert').getByText('401: Invalid API key').waitFor();
    await screenshot(page, ARTIFACTS, 'sign-in-refused');
    await key.fill(cp.apiKey);
    await key.press('Enter');
    await page.getByRole('heading', { name: 'Deployments' }).waitFor();
    await page.getByText('No deployments yet').waitFor();
    // The key is in this tab's session storage, and never in the address.
    expect(await page.evaluate<string[]>('Object.values(sessionStorage)')).toContain(cp.apiKey);
    expect(page.url()).not.toContain(cp.apiKey);
  });

  it('watches a new deployment reach DEPLOYED live on its timeline', async () => {
    deployment = await createSourceDeployment(cp, 'console-shop');
    const patched = await patchSource(cp, deployment.id, await packExample());
    firstRevision = patched.latest_revision_id ?? '';
    await page.getByRole('link', { name: 'console-shop' }).waitFor();
    await screenshot(page, ARTIFACTS, 'deployments');
    expect(await fitsWidth(page)).toBe(true);
    await page.getByRole('link', { name: 'console-shop' }).click();
    const timeline = page.getByRole('list', { name: 'Revision timeline' });
    await timeline
      .locator('li[data-kind="change"] .timeline-card-head', { hasText: /revision created/i })
      .first()
      .waitFor();
    // Reached without reloading: the page follows the revision while it moves, its walk on
    // one line with the time each phase took.
    const walk = timeline.locator('li[data-kind="status_walk"]').first();
    await walk
      .locator('.timeline-card-head .badge', { hasText: 'DEPLOYED' })
      .waitFor({ timeout: 120_000 });
    expect(await walk.locator('.timeline-walk').textContent()).toMatch(
      /^queued .+, built in .+, deployed in .+$/,
    );
    // Its status events are one click away, not a card each.
    await walk.locator('details.timeline-events > summary').click();
    await walk.locator('[data-event="RevisionActivated"]').waitFor();
    expect(
      await walk.locator('[data-event="RevisionStatusChanged"] .badge').allTextContents(),
    ).toEqual(expect.arrayContaining(['BUILDING', 'DEPLOYING', 'DEPLOYED']));
    expect(await walk.locator('[data-event="RevisionStatusChanged"]').count()).toBeGreaterThan(3);
    expect(await page.getByText('by API key key_').count()).toBeGreaterThan(0);
    await page.getByRole('tab', { name: 'Build log' }).waitFor();
    await page.locator('pre.log').getByText('Build finished').waitFor();
    await screenshot(page, ARTIFACTS, 'deployment-timeline');
    // The runtime's structured lines read as level and message, one time each, not as JSON.
    await page.getByRole('tab', { name: 'Deploy log' }).click();
    await page
      .locator('pre.log')
      .getByText(/INFO Berth agent runtime for/)
      .waitFor();
    expect(await page.locator('pre.log').textContent()).not.toContain('{"level"');
    await page.getByRole('tab', { name: 'Build log' }).click();
  }, 180_000);

  it('opens the status URL the official deploy CLI prints: sign in, then the deployment', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const fresh = await context.newPage();
      await fresh.goto(`${proxy.url}/o/${TEST_TENANT_ID}/host/deployments/${deployment.id}`);
      const key = fresh.getByLabel(/API key/);
      await key.waitFor();
      expect(await fresh.content()).not.toContain('console-shop');
      await key.fill(cp.apiKey);
      await key.press('Enter');
      await fresh.getByRole('list', { name: 'Revision timeline' }).waitFor();
      await fresh.getByRole('heading', { name: 'console-shop' }).waitFor();
    } finally {
      await context.close();
    }
  }, 60_000);

  it("shows a PATCH's changed fields, and its secret by name only", async () => {
    const answer = await cp.api<Deployment>('PATCH', `/v2/deployments/${deployment.id}`, {
      source_config: { install_command: 'npm install --no-audit' },
      secrets: [{ name: 'SHOP_TOKEN', value: SECRET_VALUE }],
    });
    expect(answer.status).toBe(200);
    const second = answer.body.latest_revision_id ?? '';
    expect(second).not.toBe(firstRevision);
    const timeline = page.getByRole('list', { name: 'Revision timeline' });
    await timeline
      .locator('li[data-first-event="DeploymentConfigChanged"] > .timeline-changes')
      .getByText('source_config.install_command')
      .first()
      .waitFor();
    await timeline
      .locator('li.timeline-card > .timeline-secrets', { hasText: 'SHOP_TOKEN' })
      .first()
      .waitFor();
    await page.locator('.facts').getByText('SHOP_TOKEN').waitFor();
    expect((await waitForRevision(cp, deployment.id, second)).status).toBe('DEPLOYED');
    await page
      .locator(`.revisions li[data-revision-id="${second}"]`)
      .getByText('live', { exact: true })
      .waitFor();
    // The value is nowhere: not in the page, not in what the console was sent.
    expect(await page.content()).not.toContain(SECRET_VALUE);
    const history = await cp.api('GET', `/v2/deployments/${deployment.id}/history`);
    expect(JSON.stringify(history.body)).not.toContain(SECRET_VALUE);
    await screenshot(page, ARTIFACTS, 'deployment-patched');
    // At 1280 px too, nothing is wider than the window: the timeline's cards stay inside it.
    expect(await fitsWidth(page)).toBe(true);
  }, 180_000);

  it('rolls back to the first revision after a confirmation that names it', async () => {
    const row = page.locator(`.revisions li[data-revision-id="${firstRevision}"]`);
    await row.getByRole('button', { name: 'Redeploy…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Redeploy an earlier revision' });
    await dialog.getByText(firstRevision).waitFor();
    await screenshot(page, ARTIFACTS, 'redeploy-confirmation');
    await dialog.getByRole('button', { name: /^Redeploy 01/ }).click();
    await row.getByText('live', { exact: true }).waitFor({ timeout: 120_000 });
    const current = await cp.api<Deployment>('GET', `/v2/deployments/${deployment.id}`);
    expect(current.body.active_revision_id).toBe(firstRevision);
    await page
      .getByRole('list', { name: 'Revision timeline' })
      .locator('li[data-first-event="RevisionRedeployRequested"]')
      .first()
      .waitFor();
  }, 180_000);

  it('answers "what was live at T" from the history', async () => {
    const history = await cp.api<{ resources: { event: string; recorded_at: string }[] }>(
      'GET',
      `/v2/deployments/${deployment.id}/history`,
    );
    const created = history.body.resources[0]?.recorded_at ?? '';
    // With no moment picked, the answer is now's, and follows the page.
    await page.getByTestId('live-at-answer').getByText(firstRevision).waitFor();
    const input = page.getByLabel('Moment');
    const before = new Date(new Date(created).getTime() - 60_000);
    const local = new Date(before.getTime() - before.getTimezoneOffset() * 60_000);
    await input.fill(local.toISOString().slice(0, 19));
    await page.getByTestId('live-at-answer').getByText('No revision was live then.').waitFor();
    const now = new Date(Date.now() - new Date().getTimezoneOffset() * 60_000 + 60_000);
    await input.fill(now.toISOString().slice(0, 19));
    await page.getByTestId('live-at-answer').getByText(firstRevision).waitFor();
  });

  it('offers a revision whose build failed to be built again, and says what that does', async () => {
    const broken = gzipSync(Buffer.from('not a tar archive, only gzip around text'.repeat(20)));
    const failed = (await patchSource(cp, deployment.id, broken)).latest_revision_id ?? '';
    expect((await waitForRevision(cp, deployment.id, failed)).status).toBe('BUILD_FAILED');
    const row = page.locator(`.revisions li[data-revision-id="${failed}"]`);
    await row.getByRole('button', { name: 'Build again…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Build a revision again' });
    await dialog.getByText(/is built again from its source \(its build failed\)/).waitFor();
    await screenshot(page, ARTIFACTS, 'build-again-confirmation');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await row.getByRole('button', { name: 'Redeploy…' }).count()).toBe(0);
    // The revision before it stays live.
    const current = await cp.api<Deployment>('GET', `/v2/deployments/${deployment.id}`);
    expect(current.body.active_revision_id).toBe(firstRevision);
  }, 180_000);

  it("opens a revision's changes: its files, and a file's diff with its lines colored", async () => {
    const changed = await mkdtemp(join(tmpdir(), 'berth-console-changes-'));
    await copy(EXAMPLE_APP_DIR, changed, {
      recursive: true,
      filter: (source) => !source.includes('node_modules'),
    });
    const readme = join(changed, 'README.md');
    await writeFile(readme, `${await readFile(readme, 'utf8')}A line the console shows added.\n`);
    await writeFile(join(changed, 'CHANGELOG.md'), '# Changes\n');
    const revision =
      (await patchSource(cp, deployment.id, (await packDirectory(changed)).archive))
        .latest_revision_id ?? '';
    await rm(changed, { recursive: true, force: true });
    await page
      .locator(`.revisions li[data-revision-id="${revision}"]`)
      .getByRole('link', { name: 'Changes' })
      .click();
    await page.getByRole('heading', { name: /^Changes in revision/ }).waitFor();
    // The revision it replaced is the one whose tarball was not one: nothing to compare.
    await page
      .getByRole('status')
      .getByText(/Sources not compared: revision .+ could not be read/)
      .waitFor();
    await page.getByRole('combobox').selectOption(firstRevision);
    const files = page.getByRole('list', { name: 'Changed files' });
    await files.locator('li[data-change="added"]', { hasText: 'CHANGELOG.md' }).waitFor();
    await files
      .locator('li[data-change="modified"]')
      .getByRole('button', { name: 'README.md' })
      .click();
    const diff = page.getByLabel('Diff of README.md');
    const added = diff.locator('.diff-line-added', { hasText: '+A line the console shows added.' });
    await added.waitFor();
    // Added lines are green (the page's --good), in the browser's own rendering.
    expect(
      await page.evaluate<string>(
        "getComputedStyle(document.querySelector('.diff-view .diff-line-added')).color",
      ),
    ).toBe('rgb(30, 107, 58)');
    await screenshot(page, ARTIFACTS, 'revision-changes');
    expect(await fitsWidth(page)).toBe(true);
    expect((await waitForRevision(cp, deployment.id, revision)).status).toBe('DEPLOYED');
    await page.getByRole('link', { name: '← the deployment' }).click();
    await page.getByRole('heading', { name: 'console-shop' }).waitFor();
  }, 180_000);

  it("reaches the deployment's runtime through the control plane, for its own tenant only", async () => {
    const assistants = await sdk().assistants.search({ graphId: 'agent' });
    expect(assistants.map((assistant) => assistant.graph_id)).toEqual(['agent']);
    const foreign = await fetch(`${runtimeUrl()}/assistants/search`, {
      method: 'POST',
      headers: { 'x-api-key': OTHER_TENANT_KEY, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toEqual({ detail: `Deployment ${deployment.id} not found` });
    const anonymous = await fetch(`${runtimeUrl()}/assistants/search`, { method: 'POST' });
    expect(anonymous.status).toBe(401);
    const unknown = await fetch(`${cp.url}/v2/deployments/${crypto.randomUUID()}/runtime/ok`, {
      headers: { 'x-api-key': cp.apiKey },
    });
    expect(unknown.status).toBe(404);
    const malformed = await fetch(`${cp.url}/v2/deployments/not-a-uuid/runtime/ok`, {
      headers: { 'x-api-key': cp.apiKey },
    });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toEqual({ detail: 'Validation failed (uuid is expected)' });
  });

  it('shows assistants, their versions side by side, and sets the latest', async () => {
    const client = sdk();
    const created = await client.assistants.create({
      graphId: 'agent',
      name: 'console-assistant',
      context: { model: 'small' },
      metadata: { team: 'support' },
    });
    await client.assistants.update(created.assistant_id, {
      context: { model: 'large' },
      metadata: { team: 'support', tier: 'gold' },
    });
    await page.goto(`${proxy.url}/#/deployments/${deployment.id}/runtime/assistants`);
    await page.getByRole('link', { name: 'console-assistant', exact: true }).click();
    const diff = page.getByRole('table', { name: 'Changes from version 1 to 2' });
    await diff.waitFor();
    expect(await diff.locator('tbody tr').allTextContents()).toEqual([
      'context.modelsmalllarge',
      'metadata.tier—gold',
    ]);
    // Each version says who made it and what it changed from the one it was made from.
    const second = page.getByRole('row', { name: /^2 / });
    expect(await second.locator('.version-changes li').allTextContents()).toEqual([
      'context.model: small → large',
      'metadata.tier added: gold',
    ]);
    await second.getByText('the platform (API key)').waitFor();
    await page.getByRole('row', { name: /^1 / }).getByText('first version').waitFor();
    await screenshot(page, ARTIFACTS, 'assistant-versions');
    expect(await fitsWidth(page)).toBe(true);
    // Exact: the row's "Set latest" button holds the word too.
    await page.getByRole('row', { name: /^2 / }).getByText('latest', { exact: true }).waitFor();
    await page
      .getByRole('row', { name: /^1 / })
      .getByRole('button', { name: 'Set latest' })
      .click();
    await page.getByRole('row', { name: /^1 / }).getByText('latest', { exact: true }).waitFor();
    expect((await client.assistants.get(created.assistant_id)).version).toBe(1);
  });

  it('highlights the tab of the page shown; a chat names its assistant and graph', async () => {
    const assistants = await sdk().assistants.search({ graphId: 'agent', limit: 100 });
    const named = assistants.find((assistant) => assistant.name === 'console-assistant');
    const thread = await sdk().threads.create();
    const runtime = `${proxy.url}/#/deployments/${deployment.id}/runtime`;
    const showsTab = async (route: string, shown: Locator, tab: string): Promise<void> => {
      await page.goto(`${runtime}${route}`);
      await shown.waitFor();
      expect(await currentLinks(page, 'Runtime')).toEqual({ current: [tab], highlighted: [tab] });
      const main = await currentLinks(page, 'Main');
      expect(main).toEqual({ current: ['Deployments'], highlighted: ['Deployments'] });
    };
    const assistantLink = page.getByRole('link', { name: 'console-assistant', exact: true });
    await showsTab('/assistants', assistantLink, 'Assistants');
    const versions = page.getByRole('table', { name: /^Changes from version/ });
    await showsTab(`/assistants/${named?.assistant_id ?? ''}`, versions, 'Assistants');
    const threadLink = page.getByRole('link', { name: thread.thread_id });
    await showsTab('/threads', threadLink, 'Threads and runs');
    const threadTitle = page.getByRole('heading', { name: `Thread ${thread.thread_id}` });
    await showsTab(`/threads/${thread.thread_id}`, threadTitle, 'Threads and runs');
    // A chat is with an assistant: its header names it and its graph, under Assistants.
    const chatTitle = page.getByRole('heading', { name: 'Chat with console-assistant' });
    await showsTab(`/chat/${named?.assistant_id ?? ''}`, chatTitle, 'Assistants');
    expect(await page.getByTestId('chat-graph').textContent()).toBe('graph agent');
    await page.goto(`${proxy.url}/#/runtime`);
    await page.getByLabel('Runtime URL').waitFor();
    const byUrl = 'Open a runtime by URL';
    expect(await currentLinks(page, 'Main')).toEqual({ current: [byUrl], highlighted: [byUrl] });
  });

  it('chats with an assistant: streamed answer, tool call and result, kept across a reload', async () => {
    await page.goto(`${proxy.url}/#/deployments/${deployment.id}/runtime/assistants`);
    await page.getByRole('link', { name: 'Chat with agent', exact: true }).click();
    await page.getByRole('heading', { name: 'Chat with agent' }).waitFor();
    const box = page.getByLabel('Message', { exact: true });
    const messages = page.getByRole('list', { name: 'Messages' });
    // Shift+Enter makes a new line and sends nothing; Enter sends.
    await box.pressSequentially('What is the weather');
    await box.press('Shift+Enter');
    await box.pressSequentially('in Oslo?');
    expect(await box.inputValue()).toBe('What is the weather\nin Oslo?');
    expect(await messages.locator('li').count()).toBe(0);
    await box.fill('What is the weather in Oslo?');
    await box.press('Enter');
    await messages.locator('li[data-type="human"]').first().waitFor();
    expect(await box.inputValue()).toBe('');
    await messages
      .locator('li[data-type="human"]')
      .getByText('What is the weather in Oslo?')
      .waitFor();
    await messages
      .locator('.chat-tool-call', { hasText: 'get_weather' })
      .waitFor({ timeout: 60_000 });
    await messages.locator('li[data-type="tool"]').first().waitFor();
    await messages.locator('li[data-type="ai"]', { hasText: 'Oslo' }).last().waitFor();
    await page.getByTestId('chat-status').getByText('idle').waitFor({ timeout: 60_000 });
    await page.waitForURL(/#\/deployments\/[^/]+\/runtime\/chat\/[^/]+\/[0-9a-f-]{36}$/);
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, ARTIFACTS, 'chat');
    const count = await messages.locator('li').count();
    expect(count).toBe(4);

    await page.reload();
    await page
      .getByRole('list', { name: 'Messages' })
      .locator('li')
      .nth(count - 1)
      .waitFor();
    expect(await page.getByRole('list', { name: 'Messages' }).locator('li').count()).toBe(count);

    // Editing the question forks the thread from the checkpoint before it: a new branch.
    await messages.locator('li[data-type="human"]').getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Edited message').fill('What is the weather in Bergen?');
    await page.getByRole('button', { name: 'Send as a new branch' }).click();
    await messages
      .locator('li[data-type="ai"]', { hasText: 'Bergen' })
      .last()
      .waitFor({ timeout: 60_000 });
    await page.getByTestId('chat-status').getByText('idle').waitFor({ timeout: 60_000 });
    await screenshot(page, ARTIFACTS, 'chat-forked');
    const threadId = /([0-9a-f-]{36})$/.exec(page.url())?.[1] ?? '';
    type Chat = { messages: { content: unknown }[] };
    const state = await sdk().threads.getState<Chat>(threadId);
    expect(state.values.messages).toHaveLength(4);
    expect(state.values.messages[0]?.content).toBe('What is the weather in Bergen?');
    const history = await sdk().threads.getHistory<Chat>(threadId, { limit: 100 });
    const oslo = history.filter(
      (checkpoint) => checkpoint.values.messages[0]?.content === 'What is the weather in Oslo?',
    );
    expect(oslo.length).toBeGreaterThan(0);
  }, 120_000);

  it("shows the assistant's graph beside the chat, the running node highlighted", async () => {
    await page.goto(`${proxy.url}/#/deployments/${deployment.id}/runtime/assistants`);
    await page.getByRole('link', { name: 'Chat with custom', exact: true }).click();
    const graph = page.getByRole('img', { name: /^Graph: / });
    await graph.locator('[data-node="count"]').waitFor();
    await page.getByLabel('Message', { exact: true }).fill('{"steps": 20, "delay_ms": 200}');
    await page.getByRole('button', { name: 'Send' }).click();
    await graph.locator('[data-node="count"][data-running="true"]').waitFor({ timeout: 30_000 });
    await screenshot(page, ARTIFACTS, 'chat-graph-running');
    expect(await fitsWidth(page)).toBe(true);
    // A reload mid-run rejoins the thread and follows the run to its end.
    await page.waitForURL(/\/chat\/[^/]+\/[0-9a-f-]{36}$/);
    await page.reload();
    await page.getByTestId('chat-status').getByText('running').waitFor({ timeout: 30_000 });
    await page.getByTestId('chat-status').getByText('idle').waitFor({ timeout: 60_000 });
    expect(await graph.locator('[data-running="true"]').count()).toBe(0);
    const threadId = /([0-9a-f-]{36})$/.exec(page.url())?.[1] ?? '';
    const state = await sdk().threads.getState<{ result?: string }>(threadId);
    expect(state.values.result).toBe('The sum of 1..20 is 210.');
  }, 120_000);

  it('answers an interrupt from the chat', async () => {
    await page.goto(`${proxy.url}/#/deployments/${deployment.id}/runtime/assistants`);
    await page.getByRole('link', { name: 'Chat with interrupt', exact: true }).click();
    await page.getByLabel('Message', { exact: true }).fill('a note, please');
    await page.getByRole('button', { name: 'Send' }).click();
    const asked = page.getByRole('form', { name: 'Interrupt' });
    await asked.getByText('The graph asks').waitFor({ timeout: 60_000 });
    await screenshot(page, ARTIFACTS, 'chat-interrupt');
    // This graph gives no schema for its answer: an empty one is refused, and nothing is sent.
    await asked.getByRole('button', { name: 'Answer' }).click();
    await asked
      .getByRole('alert')
      .getByText(/^Type an answer/)
      .waitFor();
    const waiting = /([0-9a-f-]{36})$/.exec(page.url())?.[1] ?? '';
    expect((await sdk().threads.getState(waiting)).next).toEqual(['review']);
    await asked.getByLabel('Answer (JSON, or text)').fill('true');
    await asked.getByRole('button', { name: 'Answer' }).click();
    await asked.waitFor({ state: 'detached', timeout: 60_000 });
    await page.getByTestId('chat-status').getByText('idle').waitFor({ timeout: 60_000 });
    const threadId = /([0-9a-f-]{36})$/.exec(page.url())?.[1] ?? '';
    const state = await sdk().threads.getState<{ approved?: boolean; published?: string }>(
      threadId,
    );
    expect(state.values.approved).toBe(true);
    expect(state.next).toEqual([]);
  }, 120_000);

  it("takes an empty answer to an interrupt only where the interrupt's schema allows one", async () => {
    const { runtime, client } = reviewRuntime;
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const tab = await context.newPage();
      tab.on('pageerror', (error) => pageErrors.push(error.message));
      await tab.goto(`${proxy.url}/`);
      await tab.getByLabel(/API key/).fill(cp.apiKey);
      await tab.getByLabel(/API key/).press('Enter');
      await tab.getByRole('heading', { name: 'Deployments' }).waitFor();
      await tab.goto(`${proxy.url}/#/runtime`);
      await tab.getByLabel('Runtime URL').fill(runtime.url);
      await tab.getByLabel('Its API key').fill(runtime.apiKey);
      await tab.getByRole('button', { name: 'Open' }).click();
      await tab.getByRole('link', { name: 'Assistants' }).click();
      await tab.getByRole('link', { name: 'Chat with review', exact: true }).click();
      await tab.getByTestId('chat-graph').getByText('review').waitFor();
      const box = tab.getByLabel('Message', { exact: true });
      await box.fill('{"topic": "berths"}');
      await box.press('Enter');
      const asked = tab.getByRole('form', { name: 'Interrupt' });
      const answer = asked.getByLabel('Answer (JSON, or text)');
      await asked.getByText('Approve this topic?').waitFor({ timeout: 60_000 });
      await tab.waitForURL(/\/chat\/[^/]+\/[0-9a-f-]{36}$/);
      const threadId = /([0-9a-f-]{36})$/.exec(tab.url())?.[1] ?? '';
      // Its schema is {"type": "boolean"}: an empty answer is refused.
      await asked.getByRole('button', { name: 'Answer' }).click();
      await asked
        .getByRole('alert')
        .getByText(/does not allow an empty one/)
        .waitFor();
      expect((await client.threads.getState(threadId)).next).toEqual(['approve']);
      await screenshot(tab, ARTIFACTS, 'chat-interrupt-refused');
      await answer.fill('true');
      await answer.press('Enter');
      // The next one's is {"type": "string"}: the box says it may be left empty, and takes that.
      await asked.getByText('Anything to add?').waitFor({ timeout: 60_000 });
      await tab.locator('input[placeholder="May be left empty"]').waitFor();
      await asked.getByRole('button', { name: 'Answer' }).click();
      await asked.waitFor({ state: 'detached', timeout: 60_000 });
      await tab.getByTestId('chat-status').getByText('idle').waitFor({ timeout: 60_000 });
      const state = await client.threads.getState<{ approved?: boolean; note?: string }>(threadId);
      expect(state.values).toMatchObject({ approved: true, note: '' });
      expect(state.next).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);

  it('resumes a run stream after the connection is cut, missing nothing', async () => {
    const client = sdk();
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, 'custom', {
      input: { steps: 40, delay_ms: 300 },
      streamMode: ['custom', 'values'],
      streamResumable: true,
    });
    streamedRun = { thread: thread.thread_id, run: run.run_id };
    await page.goto(`${proxy.url}/#/deployments/${deployment.id}/runtime/threads`);
    await page.getByRole('link', { name: thread.thread_id }).click();
    await screenshot(page, ARTIFACTS, 'thread-before-run-ends');
    await page.getByRole('link', { name: run.run_id }).click();
    const events = page.getByTestId('stream-events').locator('li.event');
    await events.nth(4).waitFor();
    await proxy.stop();
    await page.getByTestId('stream-phase').getByText('Connection lost').waitFor();
    await screenshot(page, ARTIFACTS, 'stream-cut');
    await proxy.start();
    await page.getByTestId('stream-note').getByText('nothing missed').waitFor({ timeout: 30_000 });
    await page
      .getByTestId('stream-phase')
      .getByText('The stream ended')
      .waitFor({ timeout: 60_000 });
    await page.locator('.page-head .badge', { hasText: 'success' }).waitFor();
    const shown: (string | null)[] = [];
    for (const item of await events.all()) shown.push(await item.getAttribute('data-event-id'));
    const whole: (string | undefined)[] = [];
    for await (const part of client.runs.joinStream(thread.thread_id, run.run_id, {
      lastEventId: '-1',
    })) {
      whole.push((part as { id?: string }).id);
    }
    expect(shown).toEqual(whole);
    expect(new Set(shown).size).toBe(shown.length);
    await screenshot(page, ARTIFACTS, 'stream-resumed');
    expect(await fitsWidth(page)).toBe(true);
  }, 120_000);

  it('shows the thread: its state, its checkpoints as a timeline, its runs', async () => {
    await page.getByRole('link', { name: /← thread/ }).click();
    await page.getByRole('list', { name: 'Checkpoint timeline' }).locator('li').first().waitFor();
    await page.getByLabel('Current values').getByText('The sum of 1..40 is 820.').waitFor();
    await screenshot(page, ARTIFACTS, 'thread');
    expect(await fitsWidth(page)).toBe(true);
  });

  it('replays a finished run from any of its events', async () => {
    const { thread, run } = streamedRun;
    await page.goto(
      `${proxy.url}/#/deployments/${deployment.id}/runtime/threads/${thread}/runs/${run}`,
    );
    await page.getByTestId('stream-phase').getByText('The stream ended').waitFor();
    const events = page.getByTestId('stream-events').locator('li.event');
    expect(await events.count()).toBe(45);
    await page
      .locator('li.event[data-event-id="10"]')
      .getByRole('button', { name: 'Replay from here' })
      .click();
    await page.getByTestId('stream-note').getByText('Replaying after event 10').waitFor();
    await page.getByTestId('stream-phase').getByText('The stream ended').waitFor();
    const ids: (string | null)[] = [];
    for (const item of await events.all()) ids.push(await item.getAttribute('data-event-id'));
    expect(ids[0]).toBe('11');
    expect(ids.at(-1)).toBe('44');
    expect(ids).toHaveLength(34);
    // Each event reads as its mode and what it says; its JSON is one click away.
    const last = events.last();
    await last.locator('.event-head .badge', { hasText: 'values' }).waitFor();
    expect(await last.locator('.event-text').textContent()).toMatch(/^keys: /);
    expect(await last.locator('pre').isVisible()).toBe(false);
    await last.getByText('JSON', { exact: true }).click();
    expect(await last.locator('pre').textContent()).toContain('The sum of 1..40 is 820.');
  });

  it('opens a runtime by its own URL and key', async () => {
    const url = String(
      deployment.source_config.custom_url ??
        (await cp.api<Deployment>('GET', `/v2/deployments/${deployment.id}`)).body.source_config
          .custom_url,
    );
    await page.goto(`${proxy.url}/#/runtime`);
    await page.getByLabel('Runtime URL').fill(url);
    await page.getByLabel('Its API key').fill(cp.apiKey);
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByRole('link', { name: 'Assistants' }).click();
    await page.getByRole('link', { name: 'console-assistant', exact: true }).waitFor();
    expect(
      await page.evaluate<string>('sessionStorage.getItem("berth.console.direct-runtime")'),
    ).toContain(url);
    expect(page.url()).not.toContain(cp.apiKey);
  });

  it("shows the API's detail when a page cannot be loaded", async () => {
    const missing = crypto.randomUUID();
    await page.goto(`${proxy.url}/#/deployments/${missing}`);
    const alert = page.getByRole('alert');
    await alert.getByText(`404: Deployment ${missing} not found`).waitFor();
    await alert.getByRole('button', { name: 'Try again' }).waitFor();
    expect(await alert.count()).toBe(1);
    await screenshot(page, ARTIFACTS, 'not-found');
  });

  it('is usable at 360 px wide', async () => {
    // A deployment with a long URL of its own (a prebuilt image a cluster listener would run).
    const listener = await cp.api<{ id: string }>('POST', '/v2/listeners', {
      name: 'console-cluster',
      compute_type: 'cluster',
    });
    const longUrl =
      'https://support-assistant-production.agents.eu-west-1.example-company.internal/v2/runtime';
    const external = await cp.api('POST', '/v2/deployments', {
      name: 'console-long-url',
      source: 'external_container',
      source_config: { listener_id: listener.body.id, custom_url: longUrl },
      source_revision_config: { image_uri: 'registry.example/agent:1' },
    });
    expect(external.status).toBe(201);
    const narrow = await browser.newPage({ viewport: { width: 360, height: 740 } });
    try {
      await narrow.goto(`${proxy.url}/`);
      await narrow.getByLabel(/API key/).fill(cp.apiKey);
      await narrow.getByRole('button', { name: 'Sign in' }).click();
      await narrow.getByRole('link', { name: 'console-shop' }).waitFor();
      await narrow.getByRole('link', { name: 'console-long-url' }).waitFor();
      expect(await fitsWidth(narrow)).toBe(true);
      // Every column fits its cell; each URL stays in its own, wrapped at separators only.
      expect(await tableLayoutProblems(narrow, 'table.deployments')).toEqual([]);
      const urlSelector = `table.deployments .wrapping-url[title="${longUrl}"]`;
      expect(await lineCount(narrow, urlSelector)).toBeGreaterThan(1);
      await screenshot(narrow, ARTIFACTS, 'deployments-360');
      await narrow.getByRole('link', { name: 'console-shop' }).click();
      await narrow.getByRole('list', { name: 'Revision timeline' }).waitFor();
      expect(await fitsWidth(narrow)).toBe(true);
      await screenshot(narrow, ARTIFACTS, 'deployment-360');
      const { thread, run } = streamedRun;
      await narrow.goto(
        `${proxy.url}/#/deployments/${deployment.id}/runtime/threads/${thread}/runs/${run}`,
      );
      await narrow.getByTestId('stream-phase').getByText('The stream ended').waitFor();
      expect(await fitsWidth(narrow)).toBe(true);
      await screenshot(narrow, ARTIFACTS, 'run-360');
      await narrow.goto(`${proxy.url}/#/deployments/${deployment.id}/runtime/threads/${thread}`);
      await narrow.getByRole('list', { name: 'Checkpoint timeline' }).waitFor();
      expect(await fitsWidth(narrow)).toBe(true);
      await screenshot(narrow, ARTIFACTS, 'thread-360');
      const [agent] = await sdk().assistants.search({ graphId: 'agent', limit: 1 });
      await narrow.goto(
        `${proxy.url}/#/deployments/${deployment.id}/runtime/chat/${agent?.assistant_id ?? ''}`,
      );
      await narrow.getByRole('img', { name: /^Graph: / }).waitFor();
      expect(await fitsWidth(narrow)).toBe(true);
      await screenshot(narrow, ARTIFACTS, 'chat-360');
    } finally {
      await narrow.close();
    }
  });

  it('deletes the deployment only once its name is typed', async () => {
    await page.goto(`${proxy.url}/#/deployments/${deployment.id}`);
    await page.getByRole('button', { name: 'Delete…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete console-shop' });
    const confirm = dialog.getByRole('button', { name: 'Delete deployment' });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel('Type console-shop to confirm').fill('console-sho');
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel('Type console-shop to confirm').press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect((await cp.api('GET', `/v2/deployments/${deployment.id}`)).status).toBe(200);

    await page.getByRole('button', { name: 'Delete…' }).click();
    await dialog.getByLabel('Type console-shop to confirm').fill('console-shop');
    await dialog.getByLabel('Type console-shop to confirm').press('Enter');
    await page.getByRole('heading', { name: 'Deployments' }).waitFor();
    const gone = await cp.api<Deployment>('GET', `/v2/deployments/${deployment.id}`);
    expect(gone.status === 404 || gone.body.status === 'AWAITING_DELETE').toBe(true);
    // Once deleted, its page still shows its history, which the log keeps.
    await page.goto(`${proxy.url}/#/deployments/${deployment.id}`);
    await page.getByRole('heading', { name: 'Its history' }).waitFor({ timeout: 60_000 });
    // The delete is a card of who asked for it; the deletion itself is among its events.
    const deleted = page
      .getByRole('list', { name: 'Revision timeline' })
      .locator('li[data-first-event="DeploymentDeleteRequested"]');
    await deleted.locator('[data-event="DeploymentDeleted"]').waitFor({
      state: 'attached',
      timeout: 60_000,
    });
    await screenshot(page, ARTIFACTS, 'deleted-deployment-history');
    expect(pageErrors).toEqual([]);
  });
});
