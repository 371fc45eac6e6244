import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createHash } from 'node:crypto';
import { chmod, lstat, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { packDirectory } from '#libs/source-archive';
import { exampleAppWithEnvGraph, type AppFixture } from '../../support/app-fixture.js';
import {
  OTHER_TENANT_KEY,
  startControlPlane,
  TEST_API_KEY,
  type ControlPlaneProcess,
} from '../../support/control-plane-process.js';
import {
  packExample,
  revisionLogs,
  uploadSource,
  waitForRevision,
  type Deployment,
} from '../../support/deployment-flow.js';
import { deployAs, sealableOrSkipped } from '../../support/tenant-deploy.js';

jest.setTimeout(400_000);

/** Plants a link at every place of its tree the platform works in, each aimed at a victim. */
const ATTACK_SCRIPT = (targets: Record<string, string>): string => `
${Object.entries(targets)
  .map(([name, value]) => `${name}=${JSON.stringify(value)}`)
  .join('\n')}
try() { if "$@" 2>/dev/null; then echo "ATTACK planted: $*"; else echo "ATTACK refused: $*"; fi; }
try ln -s "$VICTIM_FILE" ../.berth-built
try ln -s "$VICTIM_DIR" ../../../home
try ln -s "$VICTIM_DIR" ../../../revisions-link
mkdir -p "$HOME/.npm"
try ln -s "$VICTIM_DIR" "$HOME/.npm/_logs"
try ln -s "$VICTIM_FILE" "$HOME/.berth-built"
try ln -s "$OTHER_HOME" "$HOME/other-home"
try ln -s "$VICTIM_DIR" planted-dir
try ln -s "$VICTIM_FILE" planted-file
try ln -s "$VICTIM_DIR" "$TMPDIR/planted"
try mv "$HOME" "$HOME.moved"
try ln -s "$OTHER_DEPLOYMENT" "$HOME"
exit 0
`;

/** At run time: the same in its home and source, then the runtime dies so it is started again. */
const ATTACK_GRAPH = (targets: Record<string, string>): string => `
import { renameSync, symlinkSync } from 'node:fs';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';

const targets = ${JSON.stringify(targets)};
const State = Annotation.Root({ tried: Annotation<Record<string, string>> });
const attempt = (what: string, act: () => void): [string, string] => {
  try { act(); return [what, 'planted']; } catch (error) { return [what, (error as { code?: string }).code ?? 'failed']; }
};
export const graph = new StateGraph(State)
  .addNode('attack', () => {
    const home = process.env.HOME ?? '';
    const tried = Object.fromEntries([
      attempt('home link', () => symlinkSync(targets.OTHER_HOME, home + '/runtime-other-home')),
      attempt('source link', () => symlinkSync(targets.VICTIM_DIR, process.cwd() + '/runtime-planted')),
      attempt('home moved', () => renameSync(home, home + '.gone')),
      attempt('home replaced', () => symlinkSync(targets.OTHER_DEPLOYMENT, home)),
    ]);
    setTimeout(() => process.exit(1), 300);
    return { tried };
  })
  .addEdge(START, 'attack')
  .addEdge('attack', END)
  .compile();
`;

type Snapshot = Record<string, { uid: number; gid: number; mode: number; content?: string }>;

/** Owner, mode and (for files) content of each path, links not followed. */
async function snapshot(paths: readonly string[]): Promise<Snapshot> {
  const found: Snapshot = {};
  for (const path of paths) {
    const stats = await lstat(path);
    found[path] = { uid: stats.uid, gid: stats.gid, mode: stats.mode };
    if (stats.isFile()) {
      const digest = createHash('sha256')
        .update(await readFile(path))
        .digest('hex');
      found[path] = { ...found[path], content: digest };
    }
  }
  return found;
}

/** Every path of a tree, links not followed. */
async function walk(dir: string): Promise<string[]> {
  const paths = [dir];
  if (!(await lstat(dir)).isDirectory()) return paths;
  for (const entry of await readdir(dir)) {
    const path = join(dir, entry);
    if (entry === 'node_modules') paths.push(path);
    else paths.push(...(await walk(path)));
  }
  return paths;
}

const describeWhereSealable = await sealableOrSkipped(describe, 'Tenant tree attack tests');

describeWhereSealable(
  "a tenant's links in its own tree, planted before builds, restarts and deletes",
  () => {
    let cp: ControlPlaneProcess;
    let app: AppFixture;
    let victims: string;
    let watched: string[];
    let before: Snapshot;
    let attacker: { deployment: Deployment; revision: { id: string; status: string } };

    beforeAll(async () => {
      cp = await startControlPlane({
        embeddedDatabase: true,
        env: { BERTH_ALLOW_UNSEALED_TENANTS: 'false' },
      });
      app = await exampleAppWithEnvGraph();
      victims = await mkdtemp(join(tmpdir(), 'berth-victims-'));
      await writeFile(join(victims, 'root-only'), 'only root may change this', { mode: 0o600 });
      await mkdir(join(victims, 'dir'), { mode: 0o700 });
      await writeFile(join(victims, 'dir', 'file'), 'root keeps this', { mode: 0o600 });
      await chmod(victims, 0o755);
    });

    afterAll(async () => {
      await cp.dispose();
      await app.remove();
      await rm(victims, { recursive: true, force: true });
    });

    it("leaves what is outside the attacker's tree and the other tenant's files unchanged", async () => {
      const other = await deployAs(cp, OTHER_TENANT_KEY, 'the-victim', await packExample());
      expect(other.revision.status).toBe('DEPLOYED');
      const otherDeployment = join(cp.dataDir, 'builds', 'deployments', other.deployment.id);
      const targets = {
        VICTIM_FILE: join(victims, 'root-only'),
        VICTIM_DIR: join(victims, 'dir'),
        OTHER_HOME: join(otherDeployment, 'home'),
        OTHER_DEPLOYMENT: otherDeployment,
      };
      watched = [
        victims,
        ...(await walk(join(victims, 'dir'))),
        join(victims, 'root-only'),
        ...(await walk(otherDeployment)),
      ];
      before = await snapshot(watched);

      await writeFile(join(app.dir, 'attack.sh'), ATTACK_SCRIPT(targets));
      await writeFile(join(app.dir, 'src', 'attack.ts'), ATTACK_GRAPH(targets));
      const config = JSON.parse(await readFile(join(app.dir, 'langgraph.json'), 'utf8')) as {
        graphs: Record<string, string>;
      };
      config.graphs.attack = './src/attack.ts:graph';
      await writeFile(join(app.dir, 'langgraph.json'), JSON.stringify(config));
      const { archive } = await packDirectory(app.dir);

      // Before and during a build: links at the build marker, in the home, the source, /tmp.
      attacker = await deployAs(cp, TEST_API_KEY, 'the-attacker', archive, {
        build_command: 'sh attack.sh',
      });
      expect(attacker.revision.status).toBe('DEPLOYED');
      const buildLines = await revisionLogs(
        cp,
        attacker.deployment.id,
        attacker.revision.id,
        'build',
      );
      expect(buildLines.filter((line) => line.startsWith('ATTACK planted: mv'))).toEqual([]);
      expect(
        buildLines.filter(
          (line) =>
            line.includes('berth-built') &&
            line.includes('planted: ln -s') &&
            !line.includes('HOME'),
        ),
      ).toEqual([]);
      expect(await snapshot(watched)).toEqual(before);

      // At run time, then a restart: the platform prepares the home again.
      const client = new Client({
        apiUrl: attacker.deployment.source_config.custom_url ?? '',
        apiKey: TEST_API_KEY,
      });
      const { tried } = (await client.runs.wait(null, 'attack', { input: {} })) as {
        tried: Record<string, string>;
      };
      expect(tried['home moved']).not.toBe('planted');
      expect(tried['home replaced']).not.toBe('planted');
      await waitForRestart(cp, attacker);
      expect(await snapshot(watched)).toEqual(before);
    });

    it('refuses an install that leaves a link for node_modules, and changes nothing outside', async () => {
      const objectPath = await uploadSource(cp, attacker.deployment.id, await packExample());
      const patched = await cp.api<Deployment>(
        'PATCH',
        `/v2/deployments/${attacker.deployment.id}`,
        {
          source_config: { install_command: `ln -s ${join(victims, 'dir')} node_modules` },
          source_revision_config: { source_tarball_path: objectPath },
        },
      );
      expect(patched.status).toBe(200);
      const revision = await waitForRevision(
        cp,
        attacker.deployment.id,
        patched.body.latest_revision_id ?? '',
      );
      expect(revision.status).toBe('BUILD_FAILED');
      expect(revision.status_message).toContain('node_modules is not a directory the install made');
      expect(await snapshot(watched)).toEqual(before);
    });

    it('deletes the attacker and nothing else', async () => {
      const deleted = await cp.api('DELETE', `/v2/deployments/${attacker.deployment.id}`);
      expect(deleted.status).toBe(204);
      const tree = join(cp.dataDir, 'builds', 'deployments', attacker.deployment.id);
      const deadline = Date.now() + 60_000;
      while (
        await lstat(tree).then(
          () => Date.now() < deadline,
          () => false,
        )
      ) {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      if (await lstat(tree).then(() => true, () => false)) console.log(cp.output().slice(-6000));
      await expect(lstat(tree)).rejects.toMatchObject({ code: 'ENOENT' });
      expect(await snapshot(watched)).toEqual(before);
    });
  },
);

/** Waits until the attacker's runtime has died and been started again, serving. */
async function waitForRestart(
  cp: ControlPlaneProcess,
  attacker: { deployment: Deployment; revision: { id: string } },
): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const lines = await revisionLogs(cp, attacker.deployment.id, attacker.revision.id, 'deploy');
    const restarted = lines.some((line) => line.includes('starting it again'));
    const ok = await fetch(`${attacker.deployment.source_config.custom_url ?? ''}/ok`).then(
      (response) => response.ok,
      () => false,
    );
    if (
      restarted &&
      ok &&
      lines.filter((line) => line.includes('Starting the active revision again')).length > 0
    )
      return;
    if (Date.now() > deadline)
      throw new Error(`The attacker's runtime was not started again:\n${lines.join('\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
