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

describe('a build a killed control plane left running', () => {
  let first: ControlPlaneProcess | undefined;
  let second: ControlPlaneProcess | undefined;

  afterAll(async () => {
    if (second) await second.dispose();
    else await first?.dispose();
  });

  it('is ended by the next control plane before it builds again', async () => {
    first = await startControlPlane();
    const cp = first;
    const created = await cp.api<{ id: string }>('POST', '/v2/deployments', {
      name: `leftover-${Date.now()}`,
      source: 'internal_source',
      // The first build hangs (and says its pid); the next one, after the restart, finishes.
      source_config: {
        build_command:
          'if [ ! -e ../../first-build ]; then touch ../../first-build; echo "build pid $$"; exec sleep 600; fi',
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
    let pid = 0;
    await until(async () => {
      const lines = await revisionLogs(cp, deploymentId, revisionId, 'build');
      pid = Number(lines.map((line) => /^build pid (\d+)$/.exec(line)?.[1]).find(Boolean) ?? 0);
      return pid > 0;
    }, 'the build command started');

    await cp.kill();
    expect(alive(pid)).toBe(true);

    second = await startControlPlane({
      dataDir: cp.dataDir,
      databaseUrl: cp.databaseUrl,
      port: cp.port,
    });
    await until(() => !alive(pid), `build process ${pid} ended`);
    const restarted = second;
    await until(
      () =>
        restarted
          .output()
          .includes('Ended 1 build command(s) that a stopped control plane left running'),
      'the restarted control plane says it ended the leftover',
    );
    const rebuilt = await waitForRevision(second, deploymentId, revisionId);
    expect(rebuilt.status).toBe('DEPLOYED');
  });
});
