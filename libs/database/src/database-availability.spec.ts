import { describe, expect, it, jest } from '@jest/globals';
import { DatabaseAvailability, isDatabaseUnavailable } from './database-availability.js';

describe('isDatabaseUnavailable', () => {
  it('knows a refused, lost or recovering server, also wrapped, also as a message', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      code: 'ECONNREFUSED',
    });
    expect(isDatabaseUnavailable(refused)).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code: '57P01' }))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable({ message: 'query failed', driverError: refused })).toBe(true);
    expect(isDatabaseUnavailable(new Error('wrapped', { cause: refused }))).toBe(true);
    expect(isDatabaseUnavailable('the database system is starting up')).toBe(true);
  });

  it('leaves failing queries alone', () => {
    expect(isDatabaseUnavailable(Object.assign(new Error('dup'), { code: '23505' }))).toBe(false);
    expect(isDatabaseUnavailable(new Error('relation "x" does not exist'))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });

  it('leaves a client that left mid-request alone (aborted: ECONNRESET with no system call)', () => {
    const aborted = Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
    expect(isDatabaseUnavailable(aborted)).toBe(false);
    const lost = Object.assign(new Error('read ECONNRESET'), {
      code: 'ECONNRESET',
      syscall: 'read',
    });
    expect(isDatabaseUnavailable(lost)).toBe(true);
  });
});

/** Resolves once the condition holds, polling; fails the test after 5 s. */
async function eventually(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('the condition never held');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('DatabaseAvailability', () => {
  const refused = new Error('connect ECONNREFUSED 127.0.0.1:5432');

  function tracked(probe: () => Promise<void>) {
    const availability = new DatabaseAvailability();
    const onDown = jest.fn();
    const onUp = jest.fn();
    availability.configure({ probe, reports: { onDown, onUp } });
    return { availability, onDown, onUp };
  }

  it('reports an outage once however many errors meet it, and its end once', async () => {
    let answers = false;
    const { availability, onDown, onUp } = tracked(() =>
      answers ? Promise.resolve() : Promise.reject(refused),
    );
    expect(availability.noticeFailure(new Error('syntax error'))).toBe(false);
    for (let i = 0; i < 50; i++) expect(availability.noticeFailure(refused)).toBe(true);
    expect(onDown).toHaveBeenCalledTimes(1);
    expect(await availability.check()).toMatchObject({ ok: false, failures: 50 });

    answers = true;
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(onUp).toHaveBeenCalledTimes(1);
    expect(availability.isDown).toBe(false);
    expect(await availability.check()).toEqual({ ok: true });
    availability.release();
  });

  it('finds an outage nobody met yet with its probe, which never hangs /ok nor takes slowness for one', async () => {
    const { availability, onDown } = tracked(() => Promise.reject(refused));
    expect(await availability.check()).toMatchObject({ ok: false, error: refused.message });
    expect(onDown).toHaveBeenCalledTimes(1);
    availability.release();

    // A probe that does not answer in time says nothing of an outage (a busy machine): /ok
    // keeps what it knew, and answers within the probe's timeout.
    const hanging = tracked(() => new Promise<void>(() => undefined));
    const started = Date.now();
    expect(await hanging.availability.check()).toMatchObject({ ok: true });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(hanging.onDown).not.toHaveBeenCalled();
  });

  it('ends an outage only when a new connection answers, never on a pooled answer that raced it', async () => {
    let release: () => void = () => undefined;
    const pooled = jest.fn(
      () =>
        new Promise<void>((resolve) => {
          release = resolve;
        }),
    );
    let fresh = false;
    const recoveryProbe = jest.fn(() => (fresh ? Promise.resolve() : Promise.reject(refused)));
    const availability = new DatabaseAvailability();
    const onDown = jest.fn();
    const onUp = jest.fn();
    availability.configure({ probe: pooled, recoveryProbe, reports: { onDown, onUp } });

    const checking = availability.check();
    expect(availability.noticeFailure(refused)).toBe(true);
    release();
    expect(await checking).toMatchObject({ ok: false });
    expect(availability.isDown).toBe(true);

    await eventually(() => recoveryProbe.mock.calls.length >= 2);
    expect(availability.isDown).toBe(true);

    fresh = true;
    await eventually(() => !availability.isDown);
    expect(onDown).toHaveBeenCalledTimes(1);
    expect(onUp).toHaveBeenCalledTimes(1);
    availability.release();
  });
});
