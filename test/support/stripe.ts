// Signing and delivering Stripe events to the test API, and waiting for the workers.
import Stripe from 'stripe';
import type { Pool } from '../../src/db/pool.js';
import type { InboxStatus } from '../../src/db/webhook-events.js';
import { type FixtureVars, loadFixture } from '../../src/platform/fixtures.js';
import { type Reply, type SeededProgram, type TestApi, adminHeaders, seedProgram, trackClick } from './harness.js';

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

let runs = 0;

/**
 * A program connected to Stripe (this file's signing secret), one click, and unless told
 * otherwise a browser-mode lead with the run's customer key and email; `vars` fill fixtures.
 */
export async function seedStripeCustomer(api: TestApi, program: Record<string, unknown> = {}, opts: { lead?: boolean; email?: string } = {}) {
  const shop: SeededProgram = await seedProgram(api, program);
  await api.request('PATCH', `/api/v1/admin/programs/${shop.programId}/stripe`, { body: { webhook_secret: WEBHOOK_SECRET }, headers: adminHeaders });
  const clickId = await trackClick(api, shop.affiliateUrl);
  const run = `r${++runs}_${Date.now()}`;
  const vars = { run, click_id: clickId, customer_key: `user_${run}`, program_id: shop.programId, email: opts.email ?? `buyer_${run}@example.com` };
  if (opts.lead !== false) {
    const lead = await api.request('POST', '/api/v1/track/lead', { body: { click_id: clickId, customer_key: vars.customer_key, email: vars.email } });
    if (lead.status !== 200) throw new Error(`lead: ${lead.status} ${JSON.stringify(lead.body)}`);
  }
  return { shop, clickId, run, vars };
}
