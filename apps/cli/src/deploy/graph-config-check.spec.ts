import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkGraphConfigBeforeUpload } from './graph-config-check.js';

describe('checkGraphConfigBeforeUpload', () => {
  let work: string;
  let dir: string;

  beforeEach(async () => {
    work = await mkdtemp(join(tmpdir(), 'berth-check-'));
    dir = join(work, 'app');
    await mkdir(dir);
    await writeFile(join(dir, 'graph.ts'), 'export const graph = {};\n');
    await writeFile(join(work, 'elsewhere.ts'), 'export const graph = {};\n');
  });

  afterEach(async () => {
    await rm(work, { recursive: true, force: true });
  });

  const configure = (text: string): Promise<void> => writeFile(join(dir, 'langgraph.json'), text);

  it('passes a configuration whose graphs are files in the directory', async () => {
    await configure(JSON.stringify({ graphs: { agent: './graph.ts:graph' } }));
    await expect(checkGraphConfigBeforeUpload(dir, 'langgraph.json')).resolves.toBeUndefined();
  });

  it('refuses invalid JSON, naming the file', async () => {
    await configure('{ "graphs": ');
    await expect(checkGraphConfigBeforeUpload(dir, 'langgraph.json')).rejects.toThrow(
      new RegExp(`^${join(dir, 'langgraph.json')}: invalid JSON: `),
    );
  });

  it('refuses a graph whose file does not exist', async () => {
    await configure(JSON.stringify({ graphs: { agent: './missing.ts:graph' } }));
    await expect(checkGraphConfigBeforeUpload(dir, 'langgraph.json')).rejects.toThrow(
      `${join(dir, 'langgraph.json')}: graph "agent": file ${join(dir, 'missing.ts')} does not exist`,
    );
  });

  it('refuses a spec without an export', async () => {
    await configure(JSON.stringify({ graphs: { agent: './graph.ts' } }));
    await expect(checkGraphConfigBeforeUpload(dir, 'langgraph.json')).rejects.toThrow(
      'graph "agent": spec "./graph.ts" must name an export, as in "./graph.ts:graph"',
    );
  });

  it('refuses a graph file outside the uploaded directory', async () => {
    await configure(JSON.stringify({ graphs: { agent: '../elsewhere.ts:graph' } }));
    await expect(checkGraphConfigBeforeUpload(dir, 'langgraph.json')).rejects.toThrow(
      `graph "agent": file ${join(work, 'elsewhere.ts')} is outside ${dir}, which is what is uploaded`,
    );
  });
});
