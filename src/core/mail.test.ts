import { describe, expect, it } from 'vitest';
import { readUnsubscribeToken, unsubscribeToken } from './mail.js';

const SECRET = 'unit-test-secret-0123456789';
const now = new Date('2026-11-27T12:00:00Z');
const token = unsubscribeToken(SECRET, 'Ana@Example.com', 'commission_digest', new Date('2026-12-27T12:00:00Z'));

describe('readUnsubscribeToken', () => {
  it('reads the exact token it wrote', () => {
    expect(readUnsubscribeToken(SECRET, token, now)).toEqual({ ok: true, email: 'ana@example.com', kind: 'commission_digest' });
  });

  it('refuses the token with anything appended, prepended or cut', () => {
    for (const altered of [`${token}.x`, `${token}.`, `${token}x`, `${token} `, ` ${token}`, `x${token}`, token.slice(0, -1), `${token}.${token}`]) {
      expect(readUnsubscribeToken(SECRET, altered, now), altered).toEqual({ ok: false, reason: 'invalid' });
    }
  });

  it('refuses a token signed with another secret, and an expired one', () => {
    expect(readUnsubscribeToken('another-secret-0123456789', token, now)).toEqual({ ok: false, reason: 'invalid' });
    expect(readUnsubscribeToken(SECRET, token, new Date('2026-12-28T00:00:00Z'))).toEqual({ ok: false, reason: 'expired' });
  });
});
