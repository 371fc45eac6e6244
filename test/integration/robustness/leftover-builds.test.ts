import { afterAll, describe, expect, it, jest } from '@jest/globals';
import {
  startControlPlane,
  type ControlPlaneProcess,
} from '../../support/control-plane-process.js';
import {
  packExample,
  revisionLogs,
  uploadSource,
  waitForRevision,
  waitForStatus,
} from '../../support/deployment-flow.js';
import { processesIn, untilNoneLeft } from '../../support/deployment-processes.js';
import { whyUnsealable } from '../../support/tenant-deploy.js';
import { within } from '../../support/within.js';

jest.setTimeout(240_000);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const poll = async (): Promise<void> => {
    while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 100));
  };
  await within(poll(), 60_000, what);
}

const jailed = (await whyUnsealable()) === undefined;

/** The control plane of the file's tests: the first test kills it and starts the next one. */
let live: ControlPlaneProcess | undefined;

afterAll(async () => {
  await live?.dispose();
});

/** The control plane running, or a new one when there is none (or it was killed). */
async function runningControlPlane(): Promise<ControlPlaneProcess> {
  if (!live || live.child.exitCode !== null || live.child.signalCode !== null) {
    await live?.dispose();
    live = await startControlPlane();
  }
  return live;
}

describe('a build a killed control plane left running', () => {
  it('ends with it in its jail, or is ended by the next control plane before it builds again', async () => {
    const cp = await runningControlPlane();
    const created = await cp.api<{ id: string }>('POST', '/v2/deployments', {
      name: `leftover-${Date.now()}`,
      source: 'internal_source',
      // The first build hangs; the next one, after the restart, finishes.
      source_config: {
        build_command:
          'if [ ! -e "$HOME/first-build" ]; then touch "$HOME/first-build"; echo "build started"; exec sleep 600; fi',
      },
      source_revision_config: { graph_config_path: 'langgraph.json' },
    });
    expect(created.status).toBe(201);
    const deploymentId = created.body.id;
    const objectPath = await uploadSource(cp, deploymentId, await packExample());
    const patched = await cp.api<{ latest_revision_id: string }>(
      'PATCH',
      `/v2/deployments/${deploymentId}`,
      { source_revision_config: { source_tarball_path: objectPath } },
    );
    const revisionId = patched.body.latest_revision_id;
    await waitForStatus(cp, deploymentId, revisionId, 'BUILDING');
    await until(async () => {
      const lines = await revisionLogs(cp, deploymentId, revisionId, 'build');
      return lines.includes('build started');
    }, 'the build command started');
    const sleeping = (await processesIn(deploymentId)).filter((p) => p.command === 'sleep 600');
    expect(sleeping).toHaveLength(1);

    await cp.kill();
    if (jailed) {
      // Its jail ends with its parent, SIGKILL or not.
      await within(untilNoneLeft(deploymentId), 10_000, 'the jailed build ended');
    } else {
      expect(alive(sleeping[0]?.pid ?? 0)).toBe(true);
    }

    const second = await startControlPlane({
      dataDir: cp.dataDir,
      databaseUrl: cp.databaseUrl,
      port: cp.port,
    });
    live = second;
    if (!jailed) {
      await until(() => !alive(sleeping[0]?.pid ?? 0), 'the leftover build process ended');
      await until(
        () =>
          second
            .output()
            .includes('Ended 1 build command(s) that a stopped control plane left running'),
        'the restarted control plane says it ended the leftover',
      );
    }
    const rebuilt = await waitForRevision(second, deploymentId, revisionId);
    expect(rebuilt.status).toBe('DEPLOYED');
  });
});

describe('a build that leaves a daemon behind', () => {
  const itWhereJailed = jailed ? it : it.skip;
  itWhereJailed('ends it with the build: nothing of a build outlives its command', async () => {
    const cp = await runningControlPlane();
    const created = await cp.api<{ id: string }>('POST', '/v2/deployments', {
      name: `daemon-${Date.now()}`,
      source: 'internal_source',
      source_config: {
        build_command: 'setsid sleep 601 > /dev/null 2>&1 < /dev/null & echo "daemon started"',
      },
      source_revision_config: { graph_config_path: 'langgraph.json' },
    });
    const objectPath = await uploadSource(cp, created.body.id, await packExample());
    const patched = await cp.api<{ latest_revision_id: string }>(
      'PATCH',
      `/v2/deployments/${created.body.id}`,
      { source_revision_config: { source_tarball_path: objectPath } },
    );
    const revision = await waitForRevision(cp, created.body.id, patched.body.latest_revision_id);
    expect(revision.status).toBe('DEPLOYED');
    const lines = await revisionLogs(cp, created.body.id, revision.id, 'build');
    expect(lines).toContain('daemon started');
    expect(
      (await processesIn(created.body.id)).filter((p) => p.command.includes('sleep 601')),
    ).toEqual([]);
  });
});
