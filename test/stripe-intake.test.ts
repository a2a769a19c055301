// Webhook intake: signature on the raw body, inbox + job in one transaction, redelivery, routing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type SeededProgram,
  type TestApi,
  type TestDatabase,
  adminHeaders,
  count,
  createTestDatabase,
  platformError,
  seedProgram,
  startTestApi,
} from './support/harness.js';
import { CONNECT_SECRET, WEBHOOK_SECRET, deliver, fixture, sign } from './support/stripe.js';

let db: TestDatabase;
let api: TestApi;
let shop: SeededProgram;
let path: string;

beforeAll(async () => {
  db = await createTestDatabase();
  // Queue without workers: jobs stay queued, so the intake alone is observed.
  api = await startTestApi(db.pool, { AFFIX_SECRET_KEY: 'test-secret-key-0123456789', STRIPE_CONNECT_WEBHOOK_SECRET: CONNECT_SECRET }, { queueUrl: db.url });
  shop = await seedProgram(api);
  const reply = await api.request('PATCH', `/api/v1/admin/programs/${shop.programId}/stripe`, {
    body: { webhook_secret: WEBHOOK_SECRET, account_id: 'acct_intake1' },
    headers: adminHeaders,
  });
  expect(reply.body.data).toMatchObject({ webhook_secret_set: true, connect_account_id: 'acct_intake1', livemode_only_commissions: true });
  expect(reply.body.data.webhook_url).toMatch(new RegExp(`/api/v1/webhooks/stripe/${shop.programId}$`));
  path = `/api/v1/webhooks/stripe/${shop.programId}`;
});
afterAll(async () => {
  await api.close();
  await db.drop();
});

let run = 0;
const vars = () => ({ run: `in${++run}`, click_id: 'clk_x', customer_key: 'k', program_id: shop.programId, email: 'a@b.co' });
const inboxCount = () => count(db.pool, 'SELECT 1 FROM webhook_events');
const jobsFor = (inboxId: number) =>
  count(db.pool, "SELECT 1 FROM pgboss.job WHERE name = 'processor-events' AND (data ->> 'inboxId')::bigint = $1", [inboxId]);

describe('signature verification', () => {
  it('valid: stored with its job, answered after commit', async () => {
    const event = await fixture('checkout.session.completed.payment', vars());
    const reply = await deliver(api, path, event);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ received: true, id: expect.any(Number), duplicate: false, status: 'queued' });
    const { rows } = await db.pool.query('SELECT event_key, program_id, type, endpoint, status FROM webhook_events WHERE id = $1', [reply.body.id]);
    expect(rows).toEqual([{ event_key: event.id, program_id: shop.programId, type: 'checkout.session.completed', endpoint: 'program', status: 'queued' }]);
    expect(await jobsFor(reply.body.id)).toBe(1);
  });

  it('forged (other secret), stale (over 300 s), re-serialized body, missing header: 400, nothing stored', async () => {
    const event = await fixture('checkout.session.completed.payment', vars());
    const before = await inboxCount();
    const forged = await deliver(api, path, event, { secret: 'whsec_someone_else' });
    expect(forged.status).toBe(400);
    expect(forged.body.error.message).toMatch(/^Webhook signature verification failed: /);
    // The program page's live check says it in whole sentences, never cut mid-word.
    const noted = async () => (await db.pool.query("SELECT last_signature_error AS e FROM processor_endpoints WHERE program_id = $1 AND processor = 'stripe'", [shop.programId])).rows[0].e;
    expect(await noted()).toBe('No signature matched the signing secret saved here. Copy the signing secret (whsec_…) of this endpoint in Stripe and save it below.');
    const stale = await deliver(api, path, event, { timestamp: Math.floor(Date.now() / 1000) - 301 });
    expect(stale.status).toBe(400);
    expect(stale.body.error.message).toContain('tolerance');
    expect(await noted()).toMatch(/^The delivery was signed more than 5 minutes before it arrived/);
    const reserialized = await deliver(api, path, event, { body: JSON.stringify(event, null, 2) });
    expect(reserialized.status).toBe(400);
    const missing = await api.request('POST', path, { raw: JSON.stringify(event), headers: { 'Content-Type': 'application/json' } });
    expect(missing.body).toEqual(platformError(400, 'BadRequestError', 'Missing Stripe-Signature header'));
    expect(await inboxCount()).toBe(before);
    // Within tolerance is fine.
    expect((await deliver(api, path, event, { timestamp: Math.floor(Date.now() / 1000) - 200 })).status).toBe(200);
  });

  it('unknown program: 404; program without a signing secret: 400', async () => {
    const event = await fixture('checkout.session.completed.payment', vars());
    expect((await deliver(api, '/api/v1/webhooks/stripe/999999', event)).status).toBe(404);
    const bare = await seedProgram(api);
    const reply = await deliver(api, `/api/v1/webhooks/stripe/${bare.programId}`, event);
    expect(reply.body).toEqual(platformError(400, 'BadRequestError', 'Stripe is not connected for this program: set its webhook signing secret first'));
  });
});

describe('storage', () => {
  it('a redelivery is a 2xx no-op: one row, one job', async () => {
    const event = await fixture('invoice.payment_succeeded.first', vars());
    const first = await deliver(api, path, event);
    const again = await deliver(api, path, event);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ received: true, id: first.body.id, duplicate: true, status: 'queued' });
    expect(await count(db.pool, 'SELECT 1 FROM webhook_events WHERE event_key = $1', [event.id])).toBe(1);
    expect(await jobsFor(first.body.id)).toBe(1);
  });

  it('an unhandled type is answered 2xx and recorded as ignored with the reason, without a job', async () => {
    const event = await fixture('plan.created.unhandled', vars());
    event.id = `evt_plan_${Date.now()}`;
    const reply = await deliver(api, path, event);
    expect(reply.body).toMatchObject({ received: true, status: 'ignored' });
    const { rows } = await db.pool.query('SELECT status, reason FROM webhook_events WHERE id = $1', [reply.body.id]);
    expect(rows[0]).toEqual({ status: 'ignored', reason: 'event type plan.created is not handled' });
    expect(await jobsFor(reply.body.id)).toBe(0);
  });

  it('if enqueueing fails, the event is not stored and Stripe gets a 500 to retry', async () => {
    await db.pool.query(`CREATE FUNCTION fail_job() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'queue down'; END $$`);
    await db.pool.query('CREATE TRIGGER fail_job BEFORE INSERT ON pgboss.job FOR EACH ROW EXECUTE FUNCTION fail_job()');
    const event = await fixture('checkout.session.completed.payment', vars());
    try {
      const reply = await deliver(api, path, event);
      expect(reply.status).toBe(500);
    } finally {
      await db.pool.query('DROP TRIGGER fail_job ON pgboss.job');
    }
    expect(await count(db.pool, 'SELECT 1 FROM webhook_events WHERE event_key = $1', [event.id])).toBe(0);
    expect((await deliver(api, path, event)).body.status).toBe('queued');
  });
});

describe('Connect endpoint', () => {
  it('routes by event.account with the platform secret', async () => {
    const event = await fixture('checkout.session.completed.connect', { ...vars(), account_id: 'acct_intake1' });
    const reply = await deliver(api, '/api/v1/webhooks/stripe', event, { secret: CONNECT_SECRET });
    expect(reply.body).toMatchObject({ received: true, status: 'queued' });
    const { rows } = await db.pool.query('SELECT program_id, account, endpoint FROM webhook_events WHERE id = $1', [reply.body.id]);
    expect(rows[0]).toEqual({ program_id: shop.programId, account: 'acct_intake1', endpoint: 'connect' });
  });

  it('an unknown account is answered 2xx and recorded as ignored', async () => {
    const event = await fixture('checkout.session.completed.connect', { ...vars(), account_id: 'acct_nobody' });
    const reply = await deliver(api, '/api/v1/webhooks/stripe', event, { secret: CONNECT_SECRET });
    expect(reply.body).toMatchObject({ received: true, status: 'ignored' });
    const { rows } = await db.pool.query('SELECT reason, program_id FROM webhook_events WHERE id = $1', [reply.body.id]);
    expect(rows[0]).toEqual({ reason: 'no program is connected to account acct_nobody yet; processed when one is', program_id: null });
  });

  it('a program secret does not verify on the Connect endpoint', async () => {
    const event = await fixture('checkout.session.completed.connect', { ...vars(), account_id: 'acct_intake1' });
    expect((await deliver(api, '/api/v1/webhooks/stripe', event, { secret: WEBHOOK_SECRET })).status).toBe(400);
  });
});

describe('signing secrets at rest', () => {
  it('are stored sealed, never in clear', async () => {
    const { rows } = await db.pool.query("SELECT webhook_secret_sealed AS stripe_webhook_secret FROM processor_endpoints WHERE program_id = $1 AND processor = 'stripe'", [shop.programId]);
    expect(rows[0].stripe_webhook_secret).toMatch(/^v1\./);
    expect(rows[0].stripe_webhook_secret).not.toContain(WEBHOOK_SECRET);
    const header = sign('{}', WEBHOOK_SECRET);
    expect(header).toMatch(/^t=\d+,v1=/);
  });
});
