// X-Signature: the hex HMAC-SHA256 of the raw body with the store's webhook signing secret.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { errors } from '../errors.js';

export function verifyLemonSqueezySignature(rawBody: Buffer, header: unknown, secret: string): void {
  if (typeof header !== 'string' || header.trim() === '') throw errors.badRequest('Missing X-Signature header');
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  const given = header.trim();
  // A short or non-hex signature is refused as a mismatch (timingSafeEqual throws on unequal lengths).
  if (!/^[0-9a-f]{64}$/i.test(given) || !timingSafeEqual(Buffer.from(given, 'hex'), expected)) {
    throw errors.badRequest('No Lemon Squeezy signature matched the signing secret saved for this endpoint');
  }
}
