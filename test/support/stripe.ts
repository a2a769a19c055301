// Signing and delivering Stripe events to the test API, and waiting for the workers.
import Stripe from 'stripe';
import type { Pool } from '../../src/db/pool.js';
import type { InboxStatus } from '../../src/db/webhook-events.js';
import { type FixtureVars, loadFixture } from '../../src/platform/fixtures.js';
import type { Reply, TestApi } from './harness.js';

export const WEBHOOK_SECRET = 'whsec_test_affix_program_secret';
export const CONNECT_SECRET = 'whsec_test_affix_connect_secret';

export function sign(payload: string, secret: string, timestamp = Math.floor(Date.now() / 1000)): string {
  return Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });
}

export async function deliver(
  api: TestApi,
  path: string,
  event: unknown,
  options: { secret?: string; timestamp?: number; body?: string; signedText?: string } = {},
): Promise<Reply> {
  // `signedText`: these exact bytes are signed and sent; `body`: sent in place of what was signed.
  const payload = options.signedText ?? JSON.stringify(event);
  const header = sign(payload, options.secret ?? WEBHOOK_SECRET, options.timestamp);
  return api.request('POST', path, {
    raw: options.body ?? payload,
    headers: { 'Content-Type': 'application/json', 'Stripe-Signature': header },
  });
}

export const fixture = (name: string, vars: FixtureVars) => loadFixture(name, vars);

export interface InboxRow {
  id: number;
  status: InboxStatus;
  reason: string | null;
  attempts: number;
  attribution_step: string | null;
  sale_id: number | null;
  result: Record<string, unknown>;
}

/** Polls the inbox until the event reaches one of `statuses` (workers run in the background). */
export async function waitForEvent(pool: Pool, stripeEventId: string, statuses: InboxStatus[], timeoutMs = 20_000): Promise<InboxRow> {
  const started = Date.now();
  let last: InboxRow | undefined;
  while (Date.now() - started < timeoutMs) {
    const { rows } = await pool.query(
      'SELECT id, status, reason, attempts, attribution_step, sale_id, result FROM webhook_events WHERE stripe_event_id = $1',
      [stripeEventId],
    );
    last = rows[0];
    if (last && statuses.includes(last.status)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`event ${stripeEventId} did not reach ${statuses.join('/')}; last: ${JSON.stringify(last)}`);
}
