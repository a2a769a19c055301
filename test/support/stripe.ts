// Signing and delivering Stripe events to the test API, and waiting for the workers.
import Stripe from 'stripe';
import { NotYetResolvable } from '../../src/core/processor.js';
import { queueDueEvents, wakeWaitingEvents } from '../../src/db/inbox/event-outcomes.js';
import { handleProcessorEvent, handleProcessorEventBatch } from '../../src/jobs/processor-event-job.js';
import { createLogger } from '../../src/platform/logger.js';
import { PROCESSOR_EVENTS_JOB_QUEUE } from '../../src/core/queue-names.js';
import { processorEventEnqueuer } from '../../src/platform/queue.js';
import type { Pool } from '../../src/db/infra/pool.js';
import type { InboxEvent, InboxStatus } from '../../src/db/inbox/inbound-events.js';
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

/** What the tests read of an inbox row. */
export type InboxRow = Pick<InboxEvent, 'id' | 'status' | 'reason' | 'attempts' | 'attribution_step' | 'sale_id' | 'result'>;

/** Polls the inbox until the event reaches one of `statuses` (workers run in the background). */
export async function waitForEvent(pool: Pool, eventKey: string, statuses: InboxStatus[], timeoutMs = 20_000): Promise<InboxRow> {
  const started = Date.now();
  let last: InboxRow | undefined;
  while (Date.now() - started < timeoutMs) {
    const { rows } = await pool.query(
      'SELECT id, status, reason, attempts, attribution_step, sale_id, result FROM webhook_events WHERE event_key = $1',
      [eventKey],
    );
    last = rows[0];
    if (last && statuses.includes(last.status)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`event ${eventKey} did not reach ${statuses.join('/')}; last: ${JSON.stringify(last)}`);
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

const DAY_SECONDS = 86_400;

/** One event of a scenario: its fixture, when Stripe made it, and changes to it. */
export interface Step {
  fixture: string;
  /** Seconds after the run's start: Stripe's `created` (a renewal comes a month after its first invoice). */
  at?: number;
  change?: (event: any) => void;
}

/** What the worker's handler needs, for tests that run it themselves (an API started with a queue, no workers). */
export const workerDeps = (api: TestApi) => ({ pool: api.pool, logger: createLogger('silent'), queue: api.queue! });

/** Delivers each step's event, signed, to the program's endpoint; returns the inbox ids in order. */
export async function deliverSteps(api: TestApi, shop: SeededProgram, vars: Record<string, string | number>, steps: Step[]): Promise<number[]> {
  const ids: number[] = [];
  for (const step of steps) {
    const event = await fixture(step.fixture, { ...vars, created: Math.floor(Date.now() / 1000) - 40 * DAY_SECONDS + (step.at ?? 0) });
    step.change?.(event);
    const reply = await deliver(api, `/api/v1/webhooks/stripe/${shop.programId}`, event);
    if (reply.status !== 200) throw new Error(`delivery of ${step.fixture}: ${reply.status} ${JSON.stringify(reply.body)}`);
    ids.push(reply.body.id);
  }
  return ids;
}

/**
 * The rows as one worker batch (one transaction when every event goes through), then whatever
 * the batch left or gave back, one at a time as the workers would. Says whether the batch committed.
 */
export async function processEventsAsBatch(api: TestApi, inboxIds: number[]): Promise<{ batched: boolean }> {
  const left = await handleProcessorEventBatch(workerDeps(api), inboxIds.map((inboxId) => ({ inboxId, jobId: `batch-${inboxId}` })));
  // Those it left, those that must wait, and those a binding in the batch queued again.
  await processEventsInOrder(api, inboxIds);
  return { batched: left.length === 0 };
}

/**
 * Processes inbox rows in the given order; what had to wait (retrying) or was queued again by
 * a binding is processed again until nothing moves, as the workers would.
 */
export async function processEventsInOrder(api: TestApi, inboxIds: number[]): Promise<void> {
  let pending = [...inboxIds];
  for (let round = 0; round < 10 && pending.length; round++) {
    for (const id of pending) {
      try {
        await handleProcessorEvent(workerDeps(api), id);
      } catch (error) {
        if (!(error instanceof NotYetResolvable)) throw error;
      }
    }
    await wakeWaitingEvents(api.pool, processorEventEnqueuer(api.queue!));
    // Payments whose click or lead was recorded meanwhile (their wait's fallback is far off).
    await queueDueEvents(api.pool, PROCESSOR_EVENTS_JOB_QUEUE, new Date());
    const { rows } = await api.pool.query(
      `SELECT id FROM webhook_events WHERE id = ANY ($1::bigint[]) AND status IN ('queued', 'retrying') ORDER BY id`,
      [inboxIds],
    );
    pending = rows.map((row) => Number(row.id));
  }
  if (pending.length) throw new Error(`events still waiting after 10 rounds: ${pending.join(', ')}`);
}
