import { describe, expect, it } from '@jest/globals';
import { withoutTrust } from './embedded-postgres.access.js';

describe('withoutTrust', () => {
  it('turns every trust method into scram-sha-256 and leaves comments and other methods', () => {
    const hba = [
      '# TYPE  DATABASE  USER  ADDRESS       METHOD',
      '# host all all 0.0.0.0/0 trust',
      'local   all       all                 trust',
      'host    all       all   127.0.0.1/32  trust',
      'host    all       all   ::1/128       trust   # loopback',
      'host    replication all 10.0.0.0/8    md5',
    ].join('\n');
    expect(withoutTrust(hba).split('\n')).toEqual([
      '# TYPE  DATABASE  USER  ADDRESS       METHOD',
      '# host all all 0.0.0.0/0 trust',
      'local   all       all                 scram-sha-256',
      'host    all       all   127.0.0.1/32  scram-sha-256',
      'host    all       all   ::1/128       scram-sha-256   # loopback',
      'host    replication all 10.0.0.0/8    md5',
    ]);
  });

  it('changes nothing in a configuration without trust', () => {
    const hba = 'host all all 127.0.0.1/32 scram-sha-256\n';
    expect(withoutTrust(hba)).toBe(hba);
  });
});
