// Paddle-Signature: `ts=<unix seconds>;h1=<hex>` (several h1 while a secret rotates), each h1 the
// HMAC-SHA256 of `<ts>:<raw body>` with the endpoint's secret key. Checked on the raw bytes.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { errors } from '../errors.js';

/**
 * How old a signature may be. Paddle's SDK takes 5 s, which refuses a delivery that waited in
 * a queue or behind a slow proxy; a redelivery of a stored event changes nothing (its event id
 * is the inbox's key), so a day only bounds how long a captured body could be replayed.
 */
export const PADDLE_TOLERANCE_SECONDS = 24 * 60 * 60;
/** Clocks disagree a little: a signature from slightly ahead is still accepted. */
const FUTURE_SKEW_SECONDS = 5 * 60;

const hex = (value: string) => /^[0-9a-f]{64}$/i.test(value);

export function verifyPaddleSignature(rawBody: Buffer, header: unknown, secret: string, now: Date): void {
  if (typeof header !== 'string' || header.trim() === '') throw errors.badRequest('Missing Paddle-Signature header');
  const parts = header.split(';').map((part) => part.trim().split('='));
  const ts = parts.find(([key]) => key === 'ts')?.[1];
  const signatures = parts.filter(([key, value]) => key === 'h1' && value !== undefined).map(([, value]) => value!);
  if (!ts || !/^\d{1,12}$/.test(ts) || signatures.length === 0) throw errors.badRequest('Paddle-Signature must be ts=<seconds>;h1=<signature>');
  const age = Math.floor(now.getTime() / 1000) - Number(ts);
  if (age > PADDLE_TOLERANCE_SECONDS) throw errors.badRequest(`Paddle-Signature timestamp is older than ${PADDLE_TOLERANCE_SECONDS} seconds`);
  if (age < -FUTURE_SKEW_SECONDS) throw errors.badRequest('Paddle-Signature timestamp is in the future');
  const expected = createHmac('sha256', secret).update(`${ts}:`).update(rawBody).digest();
  // Any h1 may be the current secret's (Paddle sends one per active secret during a rotation).
  const matched = signatures.some((candidate) => hex(candidate) && timingSafeEqual(Buffer.from(candidate, 'hex'), expected));
  if (!matched) throw errors.badRequest('No Paddle signature matched the secret key saved for this endpoint');
}
