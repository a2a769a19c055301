// Paddle-Signature: `ts=<unix seconds>;h1=<hex>` (several h1 while a secret rotates), each h1 the
// HMAC-SHA256 of `<ts>:<raw body>` with the endpoint's secret key. Checked on the raw bytes.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { errors } from '../errors.js';

/**
 * How old a signature may be, by default (AFFIX_PADDLE_SIGNATURE_TOLERANCE_SECONDS sets it).
 * Paddle signs each attempt when it sends it, so a fresh delivery is seconds old; a longer window
 * only helps someone replaying a captured body whose first delivery was never stored. 5 minutes,
 * Stripe's default (docs/architecture.md, "Webhook signature windows"), leaves room for a queue or a slow proxy.
 */
export const PADDLE_TOLERANCE_SECONDS = 300;
/** Clocks disagree a little: a signature from slightly ahead is still accepted. */
const FUTURE_SKEW_SECONDS = 5 * 60;

const hex = (value: string) => /^[0-9a-f]{64}$/i.test(value);

export function verifyPaddleSignature(rawBody: Buffer, header: unknown, secret: string, now: Date, toleranceSeconds = PADDLE_TOLERANCE_SECONDS): void {
  if (typeof header !== 'string' || header.trim() === '') throw errors.badRequest('Missing Paddle-Signature header');
  const parts = header.split(';').map((part) => part.trim().split('='));
  const ts = parts.find(([key]) => key === 'ts')?.[1];
  const signatures = parts.filter(([key, value]) => key === 'h1' && value !== undefined).map(([, value]) => value!);
  if (!ts || !/^\d{1,12}$/.test(ts) || signatures.length === 0) throw errors.badRequest('Paddle-Signature must be ts=<seconds>;h1=<signature>');
  const age = Math.floor(now.getTime() / 1000) - Number(ts);
  if (age > toleranceSeconds) throw errors.badRequest(`Paddle-Signature timestamp is older than ${toleranceSeconds} seconds`);
  if (age < -FUTURE_SKEW_SECONDS) throw errors.badRequest('Paddle-Signature timestamp is in the future');
  const expected = createHmac('sha256', secret).update(`${ts}:`).update(rawBody).digest();
  // Any h1 may be the current secret's (Paddle sends one per active secret during a rotation).
  const matched = signatures.some((candidate) => hex(candidate) && timingSafeEqual(Buffer.from(candidate, 'hex'), expected));
  if (!matched) throw errors.badRequest('No Paddle signature matched the secret key saved for this endpoint');
}
