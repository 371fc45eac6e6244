import { describe, expect, it } from '@jest/globals';
import { baseNameOf } from '../kube-names.js';
import { plainRevision } from '../testing/cluster-revision.fixtures.js';
import { containerOf, envOf, podOf, renderedAs } from '../testing/rendered-objects.js';
import { renderProblems } from '../validate-rendered.js';
import { renderRevision } from './render-revision.js';

describe("the runtime's master key in the cluster", () => {
  it('is kept in the credentials Secret and given to every runtime pod as BERTH_MASTER_KEY', () => {
    const masterKey = Buffer.alloc(32, 7).toString('base64');
    const url = 'postgres://berth_x:secret@db.example:5432/berth_x';
    const revision = plainRevision({ database: { kind: 'external', url, masterKey } });
    const rendered = renderRevision(revision);
    const base = baseNameOf(revision.deploymentName, revision.deploymentId);
    const credentials = `${base}-db-credentials`;
    expect(renderedAs(rendered, 'Secret', credentials).stringData).toEqual({
      url,
      'master-key': masterKey,
    });
    for (const workload of [base, `${base}-queue`]) {
      const runtime = containerOf(podOf(renderedAs(rendered, 'Deployment', workload)), 'runtime');
      expect(envOf(runtime).BERTH_MASTER_KEY?.valueFrom).toEqual({
        secretKeyRef: { name: credentials, key: 'master-key' },
      });
    }
    expect(renderProblems(rendered)).toEqual([]);
  });
});
