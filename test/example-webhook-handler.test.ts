// examples/stripe-webhook-handler against the running service, fed the repository's fixtures.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { join } from 'node:path';
import Stripe from 'stripe';
import type { AddressInfo } from 'node:net';
import { Affix } from '@affix/sdk/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookApp, inMemoryOrders } from '../examples/stripe-webhook-handler/handler.js';
import { type SeededProgram, type TestApi, type TestDatabase, closeTestApi, openTestApi, seedProgram, trackClick } from './support/harness.js';
import { freePort } from './support/ports.js';
import { fixture, sign } from './support/stripe.js';
import { nockForThisFile } from './support/nock.js';

const nock = nockForThisFile();

const SECRET = 'whsec_brand_own_handler';
let db: TestDatabase;
let api: TestApi;
let shop: SeededProgram;
let handler: Server;
let handlerUrl = '';

beforeAll(async () => {
  ({ db, api } = await openTestApi());
  shop = await seedProgram(api, { commission_type: 'recurring_percent', commission_rate: 10 });
  const app = createWebhookApp({ stripeWebhookSecret: SECRET, affix: new Affix({ apiKey: shop.apiKey, apiUrl: api.url }) });
  handler = await new Promise<Server>((done) => {
    const server = app.listen(0, '127.0.0.1', () => done(server));
  });
  handlerUrl = `http://127.0.0.1:${(handler.address() as AddressInfo).port}/stripe/webhook`;
});
afterAll(async () => {
  await new Promise((done) => handler.close(done));
  await api.close();
  await db.drop();
});

async function post(event: unknown, secret = SECRET) {
  const payload = JSON.stringify(event);
  const response = await fetch(handlerUrl, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Stripe-Signature': sign(payload, secret) }, body: payload });
  return { status: response.status, body: (await response.json()) as any };
}

const sale = async (id: string) =>
  (await db.pool.query('SELECT amount_cents, is_recurring, sale_type, subscription_id FROM sales WHERE processor_event_id = $1', [id])).rows;

describe('example Stripe webhook handler', () => {
  it('reports checkout, renewals (both shapes) and refunds; skips the first invoice', async () => {
    const run = `ex${Date.now()}`;
    const clickId = await trackClick(api, shop.affiliateUrl);
    await api.request('POST', '/api/v1/track/lead', { body: { click_id: clickId, customer_key: `cust_${run}` } });
    const vars = { run, click_id: clickId, customer_key: `cust_${run}`, program_id: shop.programId, email: 'x@example.com' };

    const checkout = await post(await fixture('checkout.session.completed.payment', vars));
    expect(checkout.body.reported).toEqual([expect.objectContaining({ ok: true, status: 200 })]);
    expect(await sale(`cs_${run}_payment`)).toEqual([{ amount_cents: 4900, is_recurring: false, sale_type: 'payment', subscription_id: null }]);

    const first = await fixture('invoice.payment_succeeded.first', vars);
    first.type = 'invoice.paid';
    expect((await post(first)).body.reported).toEqual([]);
    expect(await sale(`in_${run}_first`)).toEqual([]);

    const renewal = await fixture('invoice.paid.renewal', vars);
    renewal.data.object.parent.subscription_details.metadata = { affix_customer_key: `cust_${run}` };
    expect((await post(renewal)).body.reported).toEqual([expect.objectContaining({ ok: true })]);
    expect(await sale(`in_${run}_renewal`)).toEqual([{ amount_cents: 2000, is_recurring: true, sale_type: 'subscription', subscription_id: `sub_${run}` }]);

    const legacy = await fixture('invoice.payment_succeeded.legacy-renewal', vars);
    legacy.type = 'invoice.paid';
    expect((await post(legacy)).body.reported).toEqual([expect.objectContaining({ ok: true })]);
    expect(await sale(`in_${run}_legacy`)).toEqual([{ amount_cents: 2000, is_recurring: true, sale_type: 'subscription', subscription_id: `sub_${run}` }]);

    const refunded = await post(await fixture('charge.refunded.partial-legacy', vars));
    expect(refunded.body.reported).toEqual([expect.objectContaining({ ok: true, data: expect.objectContaining({ status: 'refunded' }) })]);
    const { rows } = await db.pool.query(
      'SELECT c.refunded_total_cents FROM commissions c JOIN sales s ON s.id = c.sale_id WHERE s.processor_event_id = $1',
      [`cs_${run}_payment`],
    );
    expect(rows).toEqual([{ refunded_total_cents: 1000 }]);

    // A redelivered checkout is a 409 from Affix: a no-op.
    const again = await post(await fixture('checkout.session.completed.payment', vars));
    expect(again.body.reported).toEqual([expect.objectContaining({ ok: false, status: 409 })]);
  });

  it('current API versions: charge.refunded without a refunds list reads the refunds from Stripe (failed ones left out)', async () => {
    const run = `exr${Date.now()}`;
    const clickId = await trackClick(api, shop.affiliateUrl);
    await api.request('POST', '/api/v1/track/lead', { body: { click_id: clickId, customer_key: `cust_${run}` } });
    const vars = { run, click_id: clickId, customer_key: `cust_${run}`, program_id: shop.programId, email: 'x@example.com' };
    await post(await fixture('checkout.session.completed.payment', vars));

    const charge = await fixture('charge.refunded.full', vars);
    charge.data.object.amount_refunded = 1500;
    // Without a Stripe client the handler says why it reported nothing.
    expect((await post(charge)).body).toMatchObject({ reported: [], skipped: expect.stringContaining('STRIPE_SECRET_KEY') });

    const stripeApi = nock('https://api.stripe.com')
      .get('/v1/refunds')
      .query({ charge: `ch_${run}_payment`, limit: '100' })
      .reply(200, {
        object: 'list',
        has_more: false,
        url: '/v1/refunds',
        data: [
          { id: `re_${run}_a`, object: 'refund', amount: 1000, status: 'succeeded' },
          { id: `re_${run}_b`, object: 'refund', amount: 500, status: 'pending' },
          { id: `re_${run}_c`, object: 'refund', amount: 700, status: 'failed' },
        ],
      });
    // This handler is a second instance: its order lookup learns the checkout's payment intent.
    const orders = inMemoryOrders();
    await orders.remember(`pi_${run}_payment`, `cs_${run}_payment`);
    const withStripe = createWebhookApp({
      stripeWebhookSecret: SECRET,
      affix: new Affix({ apiKey: shop.apiKey, apiUrl: api.url }),
      orders,
      stripe: new Stripe('sk_test_example', { maxNetworkRetries: 0 }),
    });
    const server = await new Promise<Server>((done) => {
      const listening = withStripe.listen(0, '127.0.0.1', () => done(listening));
    });
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/stripe/webhook`;
      const payload = JSON.stringify({ ...charge, id: `${charge.id}_again` });
      const response = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Stripe-Signature': sign(payload, SECRET) }, body: payload });
      const body = (await response.json()) as any;
      expect(body.reported).toEqual([expect.objectContaining({ ok: true }), expect.objectContaining({ ok: true })]);
      expect(stripeApi.isDone()).toBe(true);
    } finally {
      await new Promise((done) => server.close(done));
    }
    const { rows } = await db.pool.query(
      'SELECT c.refunded_total_cents FROM commissions c JOIN sales s ON s.id = c.sale_id WHERE s.processor_event_id = $1',
      [`cs_${run}_payment`],
    );
    expect(rows).toEqual([{ refunded_total_cents: 1500 }]);
  });

  it('runs as the README says (npm run example:stripe-handler) and reports a sale', async () => {
    const readme = await readFile(join(import.meta.dirname, '../examples/stripe-webhook-handler/README.md'), 'utf8');
    const command = readme.match(/```sh\n([\s\S]*?)```/)![1]!.replace(/\\\n\s*/g, ' ').trim();
    expect(command).toMatch(/ npm run example:stripe-handler$/);
    const port = await freePort();
    const env = {
      ...process.env, STRIPE_WEBHOOK_SECRET: SECRET, AFFIX_API_KEY: shop.apiKey, AFFIX_API_URL: api.url, PORT: String(port), STRIPE_SECRET_KEY: '',
    };
    const child = spawn('npm', ['run', '--silent', 'example:stripe-handler'], { cwd: join(import.meta.dirname, '..'), env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    try {
      await expect.poll(() => output, { timeout: 20_000, interval: 100 }).toContain(`Stripe webhook handler on http://localhost:${port}/stripe/webhook`);
      const run = `exc${Date.now()}`;
      const clickId = await trackClick(api, shop.affiliateUrl);
      await api.request('POST', '/api/v1/track/lead', { body: { click_id: clickId, customer_key: `cust_${run}` } });
      const event = await fixture('checkout.session.completed.payment', { run, click_id: clickId, customer_key: `cust_${run}`, program_id: shop.programId, email: 'x@example.com' });
      const payload = JSON.stringify(event);
      const response = await fetch(`http://127.0.0.1:${port}/stripe/webhook`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Stripe-Signature': sign(payload, SECRET) }, body: payload });
      expect(((await response.json()) as any).reported).toEqual([expect.objectContaining({ ok: true, status: 200 })]);
      expect(await sale(`cs_${run}_payment`)).toEqual([{ amount_cents: 4900, is_recurring: false, sale_type: 'payment', subscription_id: null }]);
    } finally {
      child.kill('SIGTERM');
      await new Promise((done) => child.once('exit', done));
    }
  }, 40_000);

  it('refuses a bad signature', async () => {
    const reply = await post(await fixture('checkout.session.completed.payment', { run: 'bad' }), 'whsec_other');
    expect(reply.status).toBe(400);
  });
});
