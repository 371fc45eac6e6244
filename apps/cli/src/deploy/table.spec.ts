import type { Deployment, Revision } from '#libs/control-plane-client';
import { formatLogLine } from './logs.command.js';
import { deploymentTable } from './list.command.js';
import { revisionTable } from './revisions.command.js';
import { formatTable } from './table.js';

describe('formatTable', () => {
  it('pads columns to their widest cell and shows empty cells as -', () => {
    expect(
      formatTable(
        ['ID', 'NAME', 'URL'],
        [
          ['1', 'short', 'http://a'],
          ['22', 'a longer name', null],
        ],
      ),
    ).toBe(
      ['ID  NAME           URL', '1   short          http://a', '22  a longer name  -'].join('\n'),
    );
  });

  it('prints only the header when there are no rows', () => {
    expect(formatTable(['A', 'B'], [])).toBe('A  B');
  });
});

describe('the deploy tables', () => {
  it('lists deployments with id, name, type, status and URL', () => {
    const deployment = {
      id: 'd1',
      name: 'agent',
      status: 'READY',
      source_config: { deployment_type: 'dev', custom_url: 'http://127.0.0.1:8200' },
    } as unknown as Deployment;
    expect(deploymentTable([deployment]).split('\n')).toEqual([
      'ID  NAME   TYPE  STATUS  URL',
      'd1  agent  dev   READY   http://127.0.0.1:8200',
    ]);
  });

  it('lists revisions with a one-line message and marks the active one', () => {
    const revisions = [
      {
        id: 'r2',
        status: 'BUILD_FAILED',
        status_message: 'npm install\n failed',
        created_at: '2026-01-02T03:04:05.678Z',
        updated_at: '',
        active: false,
      },
      {
        id: 'r1',
        status: 'DEPLOYED',
        status_message: null,
        created_at: '2026-01-01T00:00:00Z',
        updated_at: '',
        active: true,
      },
    ] satisfies Revision[];
    expect(revisionTable(revisions).split('\n')).toEqual([
      'ID  STATUS        CREATED              ACTIVE  MESSAGE',
      'r2  BUILD_FAILED  2026-01-02 03:04:05  -       npm install failed',
      'r1  DEPLOYED      2026-01-01 00:00:00  yes     -',
    ]);
  });

  it('prints a log line with its time and type', () => {
    expect(
      formatLogLine({
        id: '1',
        timestamp: '2026-01-01T10:09:50.761Z',
        type: 'build',
        message: 'Installing',
      }),
    ).toBe('10:09:50.761 build  Installing');
  });
});
