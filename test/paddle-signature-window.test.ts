// How old a Paddle signature may be (docs/paddle.md "Signatures"): 5 minutes by default, the
// setting's value when set; a signature from slightly ahead of our clock still passes.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/platform/config.js';
import { verifyPaddleSignature } from '../src/core/paddle/signature.js';

const SECRET = 'pdl_ntfset_test_secret';
const body = Buffer.from('{"event_id":"evt_01","event_type":"transaction.completed"}');
const now = new Date('2026-11-27T12:00:00Z');
const signedAt = (secondsAgo: number) => {
  const ts = Math.floor(now.getTime() / 1000) - secondsAgo;
  return `ts=${ts};h1=${createHmac('sha256', SECRET).update(`${ts}:`).update(body).digest('hex')}`;
};

describe('the Paddle signature window', () => {
  it('is 300 seconds by default: 299 s old passes, 301 s and an hour are refused with the window named', () => {
    expect(() => verifyPaddleSignature(body, signedAt(299), SECRET, now)).not.toThrow();
    expect(() => verifyPaddleSignature(body, signedAt(301), SECRET, now)).toThrow('Paddle-Signature timestamp is older than 300 seconds');
    expect(() => verifyPaddleSignature(body, signedAt(3600), SECRET, now)).toThrow('older than 300 seconds');
    expect(() => verifyPaddleSignature(body, signedAt(-120), SECRET, now)).not.toThrow();
  });

  it('follows AFFIX_PADDLE_SIGNATURE_TOLERANCE_SECONDS', () => {
    const config = loadConfig({ AFFIX_PADDLE_SIGNATURE_TOLERANCE_SECONDS: '7200' } as NodeJS.ProcessEnv);
    expect(config.paddleSignatureToleranceSeconds).toBe(7200);
    expect(loadConfig({} as NodeJS.ProcessEnv).paddleSignatureToleranceSeconds).toBe(300);
    expect(() => verifyPaddleSignature(body, signedAt(3600), SECRET, now, config.paddleSignatureToleranceSeconds)).not.toThrow();
    expect(() => verifyPaddleSignature(body, signedAt(7201), SECRET, now, config.paddleSignatureToleranceSeconds)).toThrow('older than 7200 seconds');
    expect(() => loadConfig({ AFFIX_PADDLE_SIGNATURE_TOLERANCE_SECONDS: '0' } as NodeJS.ProcessEnv)).toThrow();
  });
});
