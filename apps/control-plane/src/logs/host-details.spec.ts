import { describe, expect, it } from '@jest/globals';
import { HostDetails } from './host-details.js';

const SOURCE = '/srv/berth/data/builds/deployments/d-1/revisions/r-1/source';
const details = new HostDetails(
  SOURCE,
  ['/srv/berth/data', '/opt/berth'],
  ['http://127.0.0.1:23000'],
);

describe('HostDetails', () => {
  it('shows paths of the project relative to it', () => {
    expect(details.scrub(`Error in ${SOURCE}/src/agent.ts:3:7`)).toBe('Error in src/agent.ts:3:7');
    expect(details.scrub(`cd ${SOURCE} && npm ci`)).toBe('cd . && npm ci');
    expect(details.scrub(`ENAMETOOLONG: lstat '${SOURCE}/a/b'`)).toBe("ENAMETOOLONG: lstat 'a/b'");
  });

  it('hides other paths of the platform and internal addresses', () => {
    expect(
      details.scrub('cannot extract into /srv/berth/data/builds/deployments/d-2/x: busy'),
    ).toBe('cannot extract into [platform]: busy');
    expect(details.scrub('at run (/opt/berth/dist/apps/agent-runtime/src/main.js:10:5)')).toBe(
      'at run ([platform]:10:5)',
    );
    expect(details.scrub('runtime on http://127.0.0.1:45585 (graphs: agent)')).toBe(
      'runtime on [internal address] (graphs: agent)',
    );
    expect(details.scrub('GET http://localhost:8080/ok')).toBe('GET [internal address]/ok');
  });

  it("shows the deployment's own URL", () => {
    expect(details.scrub('Serving at http://127.0.0.1:23000')).toBe(
      'Serving at http://127.0.0.1:23000',
    );
  });

  it('leaves other text alone', () => {
    expect(details.scrub('Installed 42 packages from https://registry.npmjs.org')).toBe(
      'Installed 42 packages from https://registry.npmjs.org',
    );
  });
});
