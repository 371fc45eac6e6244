import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packDirectory } from '#libs/source-archive';
import { exampleAppWithEnvGraph, type AppFixture } from '../../support/app-fixture.js';
import {
  startControlPlane,
  type ControlPlaneProcess,
} from '../../support/control-plane-process.js';
import {
  createSourceDeployment,
  patchSource,
  revisionLogs,
  waitForRevision,
} from '../../support/deployment-flow.js';

jest.setTimeout(240_000);

const TOKEN = 'Tok3n-Value/With+Chars 42xyz';
const FORMS: Record<string, string> = {
  'as is': TOKEN,
  'lower case': TOKEN.toLowerCase(),
  'upper case': TOKEN.toUpperCase(),
  base64: Buffer.from(TOKEN).toString('base64'),
  'base64 in basic auth': Buffer.from(`user:${TOKEN}`).toString('base64'),
  'URL-encoded': encodeURIComponent(TOKEN),
  hex: Buffer.from(TOKEN).toString('hex'),
};

/** A graph module that prints the secret, in every form above, as it loads. */
const LEAKING_GRAPH = `import { Annotation, END, START, StateGraph } from '@langchain/langgraph';

const token = process.env.API_TOKEN ?? '';
console.log('plain', token);
console.log('lower', token.toLowerCase(), 'upper', token.toUpperCase());
console.log('b64', Buffer.from(token).toString('base64'));
console.log('basic', Buffer.from('user:' + token).toString('base64'));
console.log('url', encodeURIComponent(token), 'hex', Buffer.from(token).toString('hex'));

const State = Annotation.Root({ value: Annotation<string> });
export const graph = new StateGraph(State)
  .addNode('noop', () => ({ value: 'ok' }))
  .addEdge(START, 'noop')
  .addEdge('noop', END)
  .compile();
`;

describe('what an application prints reaches its logs without secrets or host details', () => {
  let cp: ControlPlaneProcess;
  let app: AppFixture;

  beforeAll(async () => {
    cp = await startControlPlane();
    app = await exampleAppWithEnvGraph();
    await writeFile(join(app.dir, 'src', 'leak.ts'), LEAKING_GRAPH);
    const configPath = join(app.dir, 'langgraph.json');
    const config = JSON.parse(await readFile(configPath, 'utf8')) as {
      graphs: Record<string, string>;
    };
    config.graphs.leak = './src/leak.ts:graph';
    await writeFile(configPath, JSON.stringify(config));
  });

  afterAll(async () => {
    await cp.dispose();
    await app.remove();
  });

  it('masks the value, its other cases, base64, URL and hex forms in the deploy log', async () => {
    const deployment = await createSourceDeployment(cp, `masking-${Date.now()}`, [
      { name: 'API_TOKEN', value: TOKEN },
    ]);
    const { archive } = await packDirectory(app.dir);
    const patched = await patchSource(cp, deployment.id, archive);
    const revision = await waitForRevision(cp, deployment.id, patched.latest_revision_id ?? '');
    expect(revision.status).toBe('DEPLOYED');

    const log = (await revisionLogs(cp, deployment.id, revision.id)).join('\n');
    expect(log).toContain('b64 ********');
    // The runtime announced its configuration file and its address: neither is the tenant's to see.
    expect(log).toContain('Berth agent runtime for langgraph.json on [internal address]');
    expect(log).not.toContain(cp.dataDir);
    // Its own URL is the tenant's to see; no other address of this machine is.
    const ownUrl = (
      await cp.api<{ source_config: { custom_url: string } }>(
        'GET',
        `/v2/deployments/${deployment.id}`,
      )
    ).body.source_config.custom_url;
    expect(log).toContain(`Serving at ${ownUrl}`);
    expect(log.split(ownUrl).join('')).not.toMatch(/127\.0\.0\.1:\d+|localhost:\d+/);
    for (const [name, form] of Object.entries(FORMS)) {
      expect({ name, leaked: log.includes(form) }).toEqual({ name, leaked: false });
    }
  });
});
