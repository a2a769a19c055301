// Most payments nobody referred: a checkout with our metadata (the brand's customer key) that no
// click, lead or customer matches costs one attempt, then waits without a job for what could
// attribute it: a lead recorded later wakes it (one attempt more), else one late fallback
// attempt ends it with its reason. The fallback is driven by calling the due-check with a time.
import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashEmail } from '../src/core/secrets.js';
import { type Pool, createPool } from '../src/db/infra/pool.js';
import { PgTrackingTx } from '../src/db/tracking/tracking-tx.js';
import { queueDueEvents } from '../src/db/inbox/event-outcomes.js';
import { handleProcessorEvent, handleProcessorEventBatch } from '../src/jobs/processor-event-job.js';
import { loadFixture } from '../src/platform/fixtures.js';
import { PROCESSOR_EVENTS_JOB_QUEUE } from '../src/core/queue-names.js';
import { type SeededProgram, type TestApi, type TestDatabase, adminHeaders, count, createTestDatabase, seedProgram, startTestApi, trackClick } from './support/harness.js';
import { planNodes, recordStatements, scansOfLargeTables } from './support/query-plans.js';
import { deliverSteps, seedStripeCustomer, workerDeps } from './support/stripe.js';

const PADDLE_SECRET = 'pdl_ntfset_test_secret_organic_0123';
const LEMON_SECRET = 'lemon-signing-secret-organic-0123';
const MINUTE = 60_000;

let db: TestDatabase;
let api: TestApi;
beforeAll(async () => {
  db = await createTestDatabase();
  // Intake and queue only: this file runs the worker's handler and the due-check itself.
  api = await startTestApi(db.pool, { AFFIX_SECRET_KEY: 'organic-test-secret-key-0123456789' }, { queueUrl: db.url });
});
afterAll(async () => {
  await api.close();
  await db.drop();
});

const deps = () => workerDeps(api);
const dueCheck = (at: Date) => queueDueEvents(db.pool, PROCESSOR_EVENTS_JOB_QUEUE, at);
const later = (minutes: number) => new Date(Date.now() + minutes * MINUTE);

/** What the event cost: attempts that did not end it (the inbox counter), and the jobs that ran or will run it (each job one attempt here: none failed). */
async function costOf(inboxId: number) {
  const { rows } = await db.pool.query('SELECT status, reason, attempts, waited FROM webhook_events WHERE id = $1', [inboxId]);
  const jobs = await count(db.pool, `SELECT 1 FROM pgboss.job WHERE name = $1 AND data ->> 'inboxId' = $2`, [PROCESSOR_EVENTS_JOB_QUEUE.name, String(inboxId)]);
  return { ...rows[0], jobs };
}

/** A lead for `customerKey` (through a partner's click: without one, an unknown customer's lead is refused). */
async function leadArrives(shop: SeededProgram, customerKey: string, email?: string) {
  const clickId = await trackClick(api, shop.affiliateUrl);
  const reply = await api.request('POST', '/api/v1/track/lead', { body: { click_id: clickId, customer_key: customerKey, ...(email ? { email } : {}) } });
  expect(reply.status).toBe(200);
}

/** A Stripe program with a partner and no lead; its buyer checks out under their own customer key (the brand's integration), no click. */
async function organicCheckout(change: (event: any) => void = () => undefined) {
  const { shop, run, vars } = await seedStripeCustomer(api, {}, { lead: false });
  const [id] = await deliverSteps(api, shop, vars, [
    {
      fixture: 'checkout.session.completed.payment',
      change: (event) => {
        event.data.object.metadata = { affix_customer_key: vars.customer_key };
        change(event);
      },
    },
  ]);
  return { shop, run, vars, id: id! };
}

describe('an organic Stripe checkout', () => {
  it('is attempted once, waits without a job, and is attributed when its lead arrives later (woken, attempted once more)', async () => {
    const { shop, vars, id } = await organicCheckout();
    expect(await handleProcessorEvent(deps(), id)).toMatchObject({ status: 'ignored', reason: expect.stringMatching(/^no affiliate attribution yet: waiting up to 60 minutes/) });
    expect(await costOf(id)).toMatchObject({ status: 'ignored', attempts: 1, waited: false, jobs: 1 });
    // Its keys are left where refunds wait for their sale, without a retry job.
    const waiters = await db.pool.query('SELECT wait_key, retry_job FROM event_waiters WHERE inbox_id = $1 ORDER BY wait_key', [id]);
    expect(waiters.rows).toEqual([
      { wait_key: `customer_key=${vars.customer_key}`, retry_job: null },
      { wait_key: `email_hash=${hashEmail(String(vars.email)).toString('hex')}`, retry_job: null },
      { wait_key: `stripe_customer=cus_${vars.run}`, retry_job: null },
    ]);
    expect(await dueCheck(new Date())).not.toContain(id);

    await leadArrives(shop, String(vars.customer_key));
    expect(await dueCheck(new Date())).toContain(id);
    expect(await costOf(id)).toMatchObject({ status: 'queued', waited: true, jobs: 2 });
    expect(await handleProcessorEvent(deps(), id)).toMatchObject({ status: 'processed', attributionStep: 'customer_key' });
    expect(await costOf(id)).toMatchObject({ status: 'processed', attempts: 1, jobs: 2 });
    expect(await count(db.pool, 'SELECT 1 FROM event_waiters WHERE inbox_id = $1', [id])).toBe(0);
    expect(await count(db.pool, 'SELECT 1 FROM sales s JOIN commissions c ON c.sale_id = s.id WHERE s.program_id = $1', [shop.programId])).toBe(1);
  });

  it('that never gets a lead is attempted once more at the fallback time and ends with its reason; a replay after a late lead attributes it', async () => {
    const { shop, vars, id } = await organicCheckout();
    await handleProcessorEvent(deps(), id);
    expect(await dueCheck(later(59))).not.toContain(id);
    expect(await dueCheck(later(61))).toContain(id);
    expect(await handleProcessorEvent(deps(), id)).toMatchObject({
      status: 'ignored',
      reason: 'no affiliate attribution: no click, lead or customer matched its affix metadata after waiting (no partner)',
    });
    expect(await costOf(id)).toMatchObject({ status: 'ignored', attempts: 1, jobs: 2 });
    // Final: never due again, never retried.
    expect(await dueCheck(later(60 * 24 * 7))).not.toContain(id);
    expect(await costOf(id)).toMatchObject({ status: 'ignored', jobs: 2 });

    // Nothing is lost: the stored event can be replayed once its lead is there.
    await leadArrives(shop, String(vars.customer_key));
    expect((await api.request('POST', `/api/v1/admin/webhook-events/${id}/replay`, { headers: adminHeaders })).status).toBe(200);
    expect(await handleProcessorEvent(deps(), id)).toMatchObject({ status: 'processed', attributionStep: 'customer_key' });
  });

  it('a lead recorded under its email (another key) wakes it too, and the wait setting is honoured', async () => {
    const { shop, vars, id } = await organicCheckout();
    expect(await handleProcessorEvent({ ...deps(), attributionWaitMinutes: 5 }, id)).toMatchObject({ reason: expect.stringContaining('waiting up to 5 minutes') });
    expect(await dueCheck(later(4))).not.toContain(id);
    await leadArrives(shop, `other_${vars.customer_key}`, String(vars.email));
    expect(await dueCheck(new Date())).toContain(id);
    expect(await handleProcessorEvent(deps(), id)).toMatchObject({ status: 'processed', attributionStep: 'email' });
  });

  it('a subscription invoice with our metadata waits for its Stripe customer too: the checkout that binds it (under another key) wakes it', async () => {
    const { shop, run, vars } = await seedStripeCustomer(api, { commission_type: 'percent', commission_rate: 10 }, { lead: false });
    const [invoice, checkout] = await deliverSteps(api, shop, vars, [
      {
        fixture: 'invoice.payment_succeeded.first',
        change: (event) => {
          event.data.object.parent.subscription_details.metadata = { affix_customer_key: `invoice_key_${run}` };
          event.data.object.customer_email = null;
        },
      },
      { fixture: 'checkout.session.completed.subscription', at: 1 },
    ]);
    expect(await handleProcessorEvent(deps(), invoice!)).toMatchObject({ status: 'ignored', reason: expect.stringMatching(/^no affiliate attribution yet/) });
    expect(await handleProcessorEvent(deps(), checkout!)).toMatchObject({ status: 'processed', attributionStep: 'click_id' });
    expect(await dueCheck(new Date())).toContain(invoice);
    expect(await handleProcessorEvent(deps(), invoice!)).toMatchObject({ status: 'processed', attributionStep: 'stripe_customer' });
    expect(await costOf(invoice!)).toMatchObject({ attempts: 1, jobs: 2 });
  });

  it('with no identifier at all ends after one attempt: nothing could ever attribute it', async () => {
    const { id } = await organicCheckout((event) => {
      event.data.object.metadata = null;
      event.data.object.customer_details.email = null;
      event.data.object.customer = null;
    });
    expect(await handleProcessorEvent(deps(), id)).toMatchObject({ status: 'ignored', reason: 'no affiliate attribution: no click, lead, known customer or customer key matches' });
    expect(await costOf(id)).toMatchObject({ status: 'ignored', attempts: 0, jobs: 1 });
    expect(await count(db.pool, 'SELECT 1 FROM event_waiters WHERE inbox_id = $1', [id])).toBe(0);
    expect(await dueCheck(later(60 * 24))).not.toContain(id);
  });

  it('in a worker batch: organic payments no longer roll the batch back, each attempted once', async () => {
    const checkouts = [await organicCheckout(), await organicCheckout(), await organicCheckout()];
    const left = await handleProcessorEventBatch(deps(), checkouts.map(({ id }) => ({ inboxId: id, jobId: `batch-${id}` })));
    expect(left).toEqual([]);
    for (const { id } of checkouts) expect(await costOf(id)).toMatchObject({ status: 'ignored', attempts: 1, jobs: 1 });
    // The lead of the second wakes only the second.
    await leadArrives(checkouts[1]!.shop, String(checkouts[1]!.vars.customer_key));
    const due = await dueCheck(new Date());
    expect(due).toContain(checkouts[1]!.id);
    expect(due).not.toContain(checkouts[0]!.id);
    expect(due).not.toContain(checkouts[2]!.id);
  });
});

describe('Paddle and Lemon Squeezy share the wait', () => {
  const hmac = (secret: string, text: string) => createHmac('sha256', secret).update(text).digest('hex');
  const processors = [
    {
      name: 'paddle',
      secret: PADDLE_SECRET,
      fixture: '01-transaction.completed',
      headers: (body: string) => {
        const ts = Math.floor(Date.now() / 1000);
        return { 'Paddle-Signature': `ts=${ts};h1=${hmac(PADDLE_SECRET, `${ts}:${body}`)}` };
      },
      setCustom: (event: any, value: Record<string, unknown>) => void (event.data.custom_data = value),
    },
    {
      name: 'lemonsqueezy',
      secret: LEMON_SECRET,
      fixture: '01-order_created',
      headers: (body: string) => ({ 'X-Signature': hmac(LEMON_SECRET, body) }),
      setCustom: (event: any, value: Record<string, unknown>) => void (event.meta.custom_data = value),
    },
  ] as const;

  it.each(processors)('$name: an organic payment is attempted once, waits, and is attributed when its lead arrives', async (processor) => {
    const shop = await seedProgram(api, { commission_type: 'percent', commission_rate: 20 });
    const saved = await api.request('PATCH', `/api/v1/admin/programs/${shop.programId}/processors/${processor.name}`, { body: { webhook_secret: processor.secret }, headers: adminHeaders });
    expect(saved.status).toBe(200);
    const run = `o${Date.now()}${processor.name}`;
    const customerKey = `user_${run}`;
    const event = await loadFixture(join(import.meta.dirname, '..', 'fixtures', processor.name, `${processor.fixture}.json`), {
      run, click_id: 'unused', customer_key: customerKey, program_id: shop.programId, email: `organic_${run}@example.com`,
    });
    processor.setCustom(event, { affix_customer_key: customerKey });
    const body = JSON.stringify(event);
    const reply = await api.request('POST', `/api/v1/webhooks/${processor.name}/${shop.programId}`, { raw: body, headers: { 'Content-Type': 'application/json', ...processor.headers(body) } });
    expect(reply.status).toBe(200);
    const id = reply.body.id as number;

    expect(await handleProcessorEvent(deps(), id)).toMatchObject({ status: 'ignored', reason: expect.stringMatching(/^no affiliate attribution yet/) });
    expect(await costOf(id)).toMatchObject({ status: 'ignored', attempts: 1, jobs: 1 });
    await leadArrives(shop, customerKey);
    expect(await dueCheck(new Date())).toContain(id);
    expect(await handleProcessorEvent(deps(), id)).toMatchObject({ status: 'processed', attributionStep: 'customer_key' });
    expect(await costOf(id)).toMatchObject({ status: 'processed', attempts: 1, jobs: 2 });
  });
});

describe('the wake look-ups are served by indexes', () => {
  let recorded: Pool;
  afterAll(async () => {
    await recorded?.end();
  });

  it('a customer recorded finds the payments waiting for its keys by the program-scoped key index; the due-check by its own', async () => {
    // Another brand's program with 20,000 waiting keys and 20,000 finished events beside the one under test.
    const other = await seedProgram(api, {});
    const mine = await seedProgram(api, {});
    await db.pool.query(
      `INSERT INTO webhook_events (event_key, endpoint, program_id, type, livemode, payload, status)
       SELECT 'evt_plans_' || g, 'program', $1, 'checkout.session.completed', true, '{}', 'processed' FROM generate_series(1, 20000) g`,
      [other.programId],
    );
    const { rows } = await db.pool.query(`SELECT id FROM webhook_events WHERE event_key = 'evt_plans_1'`);
    await db.pool.query(
      `INSERT INTO event_waiters (program_id, wait_key, inbox_id) SELECT $1, 'customer_key=user_' || g, $2 FROM generate_series(1, 20000) g`,
      [other.programId, rows[0].id],
    );
    await db.pool.query('ANALYZE webhook_events; ANALYZE event_waiters; ANALYZE customers');

    const clickId = await trackClick(api, mine.affiliateUrl);
    recorded = createPool(db.url, { max: 1 });
    const recorder = recordStatements(recorded);
    const client = await recorded.connect();
    try {
      await client.query('BEGIN');
      const tx = new PgTrackingTx(client);
      const customer = await tx.insertCustomer({
        programId: mine.programId, customerKey: 'user_17', status: 'lead', clickId, clickedAt: new Date(), linkId: null, partnerId: mine.partnerId,
        emailHash: hashEmail('plans@example.com'), provisionalLead: false, leadAt: new Date(), convertedAt: null,
      });
      await tx.updateCustomer(customer.id, { customerKey: 'user_18' });
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    await queueDueEvents(recorded, PROCESSOR_EVENTS_JOB_QUEUE, new Date());

    const large = new Set(['webhook_events', 'event_waiters']);
    const { explained, offending } = await scansOfLargeTables(db.pool, recorder.sent, large);
    expect(offending).toEqual([]);
    expect(explained).toBeGreaterThanOrEqual(3);
    const plans = await Promise.all(
      recorder.sent
        .filter((s) => /event_waiters|attribution|wait_until/.test(s.text) && /^\s*WITH/i.test(s.text))
        .map(async (s) => planNodes((await db.pool.query(`EXPLAIN (FORMAT JSON) ${s.text}`, s.values)).rows[0]['QUERY PLAN'][0].Plan)),
    );
    const waiterScans = plans.flat().filter((node) => node['Relation Name'] === 'event_waiters');
    expect(waiterScans.length).toBeGreaterThanOrEqual(2);
    for (const scan of waiterScans.filter((node) => node['Index Name'] === 'event_waiters_pkey')) expect(scan['Index Cond']).toMatch(/program_id/);
    expect(waiterScans.some((node) => node['Index Name'] === 'event_waiters_pkey')).toBe(true);
    expect(plans.flat().some((node) => node['Index Name'] === 'webhook_events_attribution_due_idx')).toBe(true);
  });
});
