import { secretsFromDotenv, withheldReason } from './secrets.js';

describe('secretsFromDotenv', () => {
  it('sends the project variables and withholds the CLI key, BERTH_* and reserved names', () => {
    const selection = secretsFromDotenv(
      new Map([
        ['OPENAI_API_KEY', 'sk-1'],
        ['BERTH_API_KEY', 'key'],
        ['BERTH_HOST_URL', 'http://x'],
        ['BERTH_ANYTHING', 'y'],
        ['DATABASE_URL', 'postgres://'],
        ['EVENTSTORE_URL', 'esdb://'],
        ['PATH', '/bin'],
        ['HOME', '/root'],
        ['NODE_OPTIONS', '--x'],
        ['GREETING', 'hello world'],
        ['with.dot', 'z'],
      ]),
    );
    expect(selection.secrets).toEqual([
      { name: 'OPENAI_API_KEY', value: 'sk-1' },
      { name: 'GREETING', value: 'hello world' },
    ]);
    expect(selection.withheld).toEqual([
      'BERTH_API_KEY',
      'BERTH_HOST_URL',
      'BERTH_ANYTHING',
      'DATABASE_URL',
      'EVENTSTORE_URL',
      'PATH',
      'HOME',
      'NODE_OPTIONS',
      'with.dot',
    ]);
  });

  it('says why a name is withheld', () => {
    expect(withheldReason('BERTH_API_KEY')).toBe('reserved');
    expect(withheldReason('a-b')).toBe('invalid');
    expect(withheldReason('Berth_lower')).toBeUndefined();
  });
});
