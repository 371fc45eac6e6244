import { describe, expect, it } from '@jest/globals';
import { validateSync } from 'class-validator';
import { IsWebhookTarget, isRelativeWebhook } from './webhook-target.js';

class WithWebhook {
  @IsWebhookTarget()
  webhook: unknown;

  constructor(webhook: unknown) {
    this.webhook = webhook;
  }
}

const accepted = (webhook: unknown): boolean => validateSync(new WithWebhook(webhook)).length === 0;

describe('webhook targets', () => {
  it("takes an http(s) URL, or a path of this server's", () => {
    expect(accepted('https://hooks.example/run-done')).toBe(true);
    expect(accepted('http://127.0.0.1:8080/hook')).toBe(true);
    expect(accepted('/custom/webhook')).toBe(true);
    expect(isRelativeWebhook('/custom/webhook')).toBe(true);
  });

  it('refuses another scheme, a host without scheme, a protocol-relative URL and non-strings', () => {
    expect(accepted('ftp://hooks.example/run-done')).toBe(false);
    expect(accepted('hooks.example/run-done')).toBe(false);
    expect(accepted('//elsewhere.example/hook')).toBe(false);
    expect(isRelativeWebhook('//elsewhere.example/hook')).toBe(false);
    expect(accepted(42)).toBe(false);
    expect(validateSync(new WithWebhook('custom/webhook'))[0]?.constraints).toEqual({
      isWebhookTarget: `webhook must be an http(s) URL, or a path of this server's starting with "/"`,
    });
  });
});
