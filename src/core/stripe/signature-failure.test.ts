import { describe, expect, it } from 'vitest';
import { signatureFailureInWords } from './signature-failure.js';

describe('signatureFailureInWords', () => {
  it("says what to do for Stripe's known failures", () => {
    expect(signatureFailureInWords('Webhook signature verification failed: No signatures found matching the expected signature for payload. Are you passing the raw request body you received from Stripe?')).toMatch(/^No signature matched the signing secret saved here\./);
    expect(signatureFailureInWords('Webhook signature verification failed: Unable to extract timestamp and signatures from header')).toMatch(/Stripe-Signature header is not one Stripe sends/);
  });

  it('keeps an unknown message to its first sentence, cut at a word', () => {
    expect(signatureFailureInWords('Webhook signature verification failed: Something new. With more.')).toBe('Something new.');
    const long = `${'word '.repeat(60)}end`;
    const said = signatureFailureInWords(long);
    expect(said.length).toBeLessThanOrEqual(201);
    expect(said.endsWith('word…')).toBe(true);
  });
});
