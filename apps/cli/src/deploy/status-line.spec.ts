import { errorDetail } from '#libs/control-plane-client';
import { StatusLine, describeStatus, formatStatusLine } from './status-line.js';

describe('StatusLine', () => {
  it('prints one line per status change when the output is not a terminal', () => {
    const written: string[] = [];
    const line = new StatusLine({ write: (text) => written.push(text) }, false, 0);
    line.update('QUEUED', 100);
    line.update('QUEUED', 900);
    line.update('BUILDING', 2500);
    line.update('DEPLOYED', 12_000);
    expect(written).toEqual([
      'Queued (QUEUED)  0s\n',
      'Building (BUILDING)  2s\n',
      'Deployed (DEPLOYED)  12s\n',
    ]);
  });

  it('rewrites one line in place on a terminal and ends it at a final status', () => {
    const written: string[] = [];
    const line = new StatusLine({ write: (text) => written.push(text) }, true, 0);
    line.update('BUILDING', 1000);
    line.update('BUILDING', 2000);
    line.update('BUILD_FAILED', 3000);
    expect(written.every((text, index) => index === 3 || text.startsWith('\r\x1b[2K'))).toBe(true);
    expect(written[1]).toContain('Building (BUILDING)  2s');
    expect(written[2]).toBe('\r\x1b[2K  Build failed (BUILD_FAILED)  3s');
    expect(written[3]).toBe('\n');
  });

  it('describes unknown statuses by their code', () => {
    expect(describeStatus('SOMETHING_NEW')).toBe('SOMETHING_NEW');
    expect(formatStatusLine('DEPLOYING', 61_500, 0)).toBe('⠋ Deploying (DEPLOYING)  61s');
  });
});

describe('errorDetail', () => {
  it('reads a string detail, validation errors, or the text itself', () => {
    expect(errorDetail('{"detail":"Deployment not found"}')).toBe('Deployment not found');
    expect(
      errorDetail(
        '{"detail":[{"loc":["body","name"],"msg":"required","type":"missing"},{"msg":"bad"}]}',
      ),
    ).toBe('body.name: required; bad');
    expect(errorDetail('Bad Gateway\n<html>')).toBe('Bad Gateway');
  });
});
