// Paddle Billing and Lemon Squeezy through the same inbox, workers and attribution core as
// Stripe: signed on the raw body, stored before the 2xx, attributed by click id, email and
// customer key, renewals through the customer, refunds in proportion, chargebacks, a trial's
// first paid payment, and the same rows in every delivery order.
import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import fc from 'fast-check';
import { hostileText, hostileValue } from './support/hostile.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotYetResolvable } from '../src/core/processor.js';
import { handleProcessorEvent } from '../src/jobs/processor-event-job.js';
import type { ProcessorAdapter } from '../src/core/processor-port.js';
import { HeldTransaction } from '../src/db/tracking/held-transaction.js';
import { OPERATOR } from '../src/app/accounts/scope.js';
import * as payoutConfig from '../src/app/money/payout-settings.js';
import * as commissionLifecycle from '../src/app/money/commission-lifecycle.js';
import * as payoutRuns from '../src/app/money/payout-runs.js';
import { applyFact } from '../src/jobs/processor-event-job.js';
import { loadFixture } from '../src/platform/fixtures.js';
import { type SeededProgram, type TestApi, type TestDatabase, adminHeaders, createTestDatabase, seedProgram, startTestApi, trackClick } from './support/harness.js';
import { processEventsInOrder, workerDeps } from './support/stripe.js';

const PADDLE_SECRET = 'pdl_ntfset_test_secret_0123456789';
const LEMON_SECRET = 'lemon-signing-secret-0123456789';
const FIXTURES = join(import.meta.dirname, '..', 'fixtures');

let db: TestDatabase;
let api: TestApi;
beforeAll(async () => {
  db = await createTestDatabase();
  api = await startTestApi(db.pool, { AFFIX_SECRET_KEY: 'processors-test-secret-key-0123456789' }, { queueUrl: db.url });
});
afterAll(async () => {
  await api.close();
  await db.drop();
});

const hmac = (secret: string, text: Buffer | string) => createHmac('sha256', secret).update(text).digest('hex');
const paddleSignature = (body: string, secret = PADDLE_SECRET, ts = Math.floor(Date.now() / 1000)) => `ts=${ts};h1=${hmac(secret, `${ts}:${body}`)}`;

interface Processor {
  name: 'paddle' | 'lemonsqueezy';
  secret: string;
  header: string;
  sign: (body: string) => string;
  /** The fixtures of a first payment, a renewal and a partial refund of the renewal. */
  first: string;
  renewal: string;
  refund: string;
  /** Where the checkout's custom data sits, and where an email is read. */
  custom: (event: any) => Record<string, unknown> | null;
  setCustom: (event: any, value: Record<string, unknown>) => void;
  setEmail: (event: any, email: string) => void;
  zeroFirst: (event: any) => void;
  /** How a renewal finds its customer: Paddle's name the customer only; Lemon Squeezy's carry the buyer's email too (matched first, spec §6). */
  renewalStep: string;
}

const PROCESSORS: Processor[] = [
  {
    name: 'paddle',
    secret: PADDLE_SECRET,
    header: 'Paddle-Signature',
    sign: (body) => paddleSignature(body),
    first: '01-transaction.completed',
    renewal: '02-transaction.completed.renewal',
    refund: '03-adjustment.created.refund',
    custom: (event) => event.data.custom_data,
    setCustom: (event, value) => void (event.data.custom_data = value),
    setEmail: (event, email) => void (event.data.custom_data = { ...event.data.custom_data, affix_email: email }),
    zeroFirst: (event) => {
      for (const key of ['subtotal', 'total', 'grand_total', 'earnings', 'fee']) event.data.details.totals[key] = '0';
    },
    renewalStep: 'stripe_customer',
  },
  {
    name: 'lemonsqueezy',
    secret: LEMON_SECRET,
    header: 'X-Signature',
    sign: (body) => hmac(LEMON_SECRET, body),
    first: '01-order_created',
    renewal: '03-subscription_payment_success.renewal',
    refund: '04-subscription_payment_refunded.partial',
    custom: (event) => event.meta.custom_data,
    setCustom: (event, value) => void (event.meta.custom_data = value),
    setEmail: (event, email) => void (event.data.attributes.user_email = email),
    zeroFirst: (event) => {
      for (const key of ['subtotal', 'total', 'subtotal_usd', 'total_usd']) event.data.attributes[key] = 0;
    },
    renewalStep: 'email',
  },
];

let runs = 0;
/** A program at 20 % of the first paid sale with this processor's endpoint, a click and a lead (key and email). */
async function shopFor(processor: Processor) {
  const shop: SeededProgram = await seedProgram(api, { commission_type: 'percent', commission_rate: 20 });
  const saved = await api.request('PATCH', `/api/v1/admin/programs/${shop.programId}/processors/${processor.name}`, { body: { webhook_secret: processor.secret }, headers: adminHeaders });
  expect(saved.status).toBe(200);
  const clickId = await trackClick(api, shop.affiliateUrl);
  const run = `p${++runs}${Date.now()}`;
  const vars = { run, click_id: clickId, customer_key: `user_${run}`, program_id: shop.programId, email: `buyer_${run}@example.com` };
  const lead = await api.request('POST', '/api/v1/track/lead', { body: { click_id: clickId, customer_key: vars.customer_key, email: vars.email } });
  expect(lead.status).toBe(200);
  return { shop, vars };
}

const fixture = (processor: Processor, name: string, vars: Record<string, string | number>) => loadFixture(join(FIXTURES, processor.name, `${name}.json`), vars);

async function deliver(processor: Processor, programId: number, event: unknown, signature?: string) {
  const body = JSON.stringify(event);
  return api.request('POST', `/api/v1/webhooks/${processor.name}/${programId}`, { raw: body, headers: { 'Content-Type': 'application/json', [processor.header]: signature ?? processor.sign(body) } });
}

async function deliverAll(processor: Processor, programId: number, events: unknown[]) {
  const ids: number[] = [];
  for (const event of events) {
    const reply = await deliver(processor, programId, event);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    ids.push(reply.body.id);
  }
  return ids;
}

/** The program's sales with their commission as every surface reads it. */
async function salesOf(programId: number) {
  const { rows } = await db.pool.query(
    `SELECT s.processor_event_id AS txn, s.amount_cents AS amount, s.attribution_step AS step, s.provider, cs.state, cs.earned_cents AS earned, c.deducted_cents AS deducted
       FROM sales s LEFT JOIN commission_states cs ON cs.sale_id = s.id LEFT JOIN commissions c ON c.id = cs.id
      WHERE s.program_id = $1 ORDER BY s.occurred_at, s.processor_event_id`,
    [programId],
  );
  return rows;
}

const permutations = <T>(items: T[]): T[][] =>
  items.length <= 1 ? [items] : items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));

describe.each(PROCESSORS)('$name', (processor) => {
  it('a first payment is attributed by click id; the renewal follows through the customer; a partial refund deducts in proportion', async () => {
    const { shop, vars } = await shopFor(processor);
    const ids = await deliverAll(processor, shop.programId, [await fixture(processor, processor.first, vars), await fixture(processor, processor.renewal, vars), await fixture(processor, processor.refund, vars)]);
    await processEventsInOrder(api, ids);
    const sales = await salesOf(shop.programId);
    expect(sales.map((s) => [s.amount, s.step, s.provider])).toEqual([[2900, 'click_id', processor.name], [2900, processor.renewalStep, processor.name]]);
    // 20 % of the first paid sale: 580; the renewal earns nothing; half refunded on the renewal takes nothing from the first.
    expect(sales[0]).toMatchObject({ state: 'pending', earned: 580 });
    const inbox = await db.pool.query('SELECT processor, status FROM webhook_events WHERE id = ANY ($1::bigint[]) ORDER BY id', [ids]);
    expect(inbox.rows).toEqual(ids.map(() => ({ processor: processor.name, status: 'processed' })));
  });

  it('attributed by email and by customer key alone', async () => {
    const byEmail = await shopFor(processor);
    const emailEvent = await fixture(processor, processor.first, byEmail.vars);
    processor.setCustom(emailEvent, {});
    processor.setEmail(emailEvent, byEmail.vars.email);
    await processEventsInOrder(api, await deliverAll(processor, byEmail.shop.programId, [emailEvent]));
    expect((await salesOf(byEmail.shop.programId)).map((s) => [s.step, s.earned])).toEqual([['email', 580]]);

    const byKey = await shopFor(processor);
    const keyEvent = await fixture(processor, processor.first, byKey.vars);
    processor.setCustom(keyEvent, { affix_customer_key: byKey.vars.customer_key });
    processor.setEmail(keyEvent, 'someone-else@example.com');
    await processEventsInOrder(api, await deliverAll(processor, byKey.shop.programId, [keyEvent]));
    expect((await salesOf(byKey.shop.programId)).map((s) => [s.step, s.earned])).toEqual([['customer_key', 580]]);
  });

  it("a trial: the $0 first payment binds the customer and the first paid one is the first sale", async () => {
    const { shop, vars } = await shopFor(processor);
    const trial = await fixture(processor, processor.first, vars);
    processor.zeroFirst(trial);
    const ids = await deliverAll(processor, shop.programId, [trial, await fixture(processor, processor.renewal, vars)]);
    await processEventsInOrder(api, ids);
    expect((await salesOf(shop.programId)).map((s) => [s.amount, s.step, s.earned])).toEqual([[2900, processor.renewalStep, 580]]);
  });

  it('every delivery order, and every event twice, gives the same rows', async () => {
    let expected: unknown = null;
    for (const order of permutations([0, 1, 2])) {
      const { shop, vars } = await shopFor(processor);
      const events = [await fixture(processor, processor.first, vars), await fixture(processor, processor.renewal, vars), await fixture(processor, processor.refund, vars)];
      const sent = order.map((i) => events[i]!);
      const ids = await deliverAll(processor, shop.programId, [...sent, ...sent]);
      // A redelivery is the same inbox row.
      expect(ids.slice(3)).toEqual(ids.slice(0, 3));
      await processEventsInOrder(api, ids.slice(0, 3));
      // What the partner is owed per sale. A renewal processed before the first payment earned the
      // first-sale commission until then: that commission stays, moved (earning nothing), as the trace.
      const rows = (await salesOf(shop.programId)).map(({ txn: _txn, ...row }) => (row.state === 'moved' ? { ...row, state: null, earned: null, deducted: null } : row));
      expected ??= rows;
      expect(rows, `order ${order.join(',')}`).toEqual(expected);
    }
    // The refund (1450 of the 2900 renewal) deducts nothing from a renewal that earns nothing.
    expect(expected).toEqual([
      expect.objectContaining({ amount: 2900, step: 'click_id', earned: 580, deducted: 0 }),
      expect.objectContaining({ amount: 2900, step: processor.renewalStep, earned: null }),
    ]);
  });

  it('a partial refund of the first sale deducts in proportion', async () => {
    const { shop, vars } = await shopFor(processor);
    const refund = await fixture(processor, processor.refund, vars);
    // The same refund, of the first payment.
    if (processor.name === 'paddle') refund.data.transaction_id = `txn_${vars.run}_first`;
    else Object.assign(refund, { meta: { ...refund.meta, event_name: 'order_refunded' }, data: { ...refund.data, type: 'orders', id: `${vars.run}1` } });
    await processEventsInOrder(api, await deliverAll(processor, shop.programId, [await fixture(processor, processor.first, vars), refund]));
    expect((await salesOf(shop.programId)).map((s) => [s.earned, s.deducted])).toEqual([[290, 290]]);
  });

  it('a bad signature is a 400 and nothing is stored; hostile bodies are never a 5xx', async () => {
    const { shop, vars } = await shopFor(processor);
    const event = await fixture(processor, processor.first, vars);
    const before = Number((await db.pool.query('SELECT count(*) FROM webhook_events')).rows[0].count);
    const wrong = processor.name === 'paddle' ? paddleSignature(JSON.stringify(event), 'another-secret') : hmac('another-secret', JSON.stringify(event));
    const replies = [
      await deliver(processor, shop.programId, event, wrong),
      await deliver(processor, shop.programId, event, 'abc'),
      await deliver(processor, shop.programId, event, ''),
      await api.request('POST', `/api/v1/webhooks/${processor.name}/${shop.programId}`, { raw: 'not json', headers: { [processor.header]: processor.sign('not json') } }),
      await api.request('POST', `/api/v1/webhooks/${processor.name}/${shop.programId}`, { raw: '{"data":[]}', headers: { [processor.header]: processor.sign('{"data":[]}') } }),
      await api.request('POST', `/api/v1/webhooks/${processor.name}/999999999`, { raw: '{}', headers: { [processor.header]: processor.sign('{}') } }),
    ];
    expect(replies.map((r) => r.status)).toEqual([400, 400, 400, 400, 400, 404]);
    expect(replies[0]!.body.error.message).toMatch(/No (Paddle|Lemon Squeezy) signature matched/);
    expect(Number((await db.pool.query('SELECT count(*) FROM webhook_events')).rows[0].count)).toBe(before);
  });
});

describe('paddle only', () => {
  const paddle = PROCESSORS[0]!;
  it('a chargeback reverses the commission and a reversed (won) one restores it, in either order', async () => {
    for (const order of [[0, 1, 2], [0, 2, 1]]) {
      const { shop, vars } = await shopFor(paddle);
      const events = [await fixture(paddle, '01-transaction.completed', vars), await fixture(paddle, '04-adjustment.created.chargeback', vars), await fixture(paddle, '05-adjustment.created.chargeback-reverse', vars)];
      const ids = await deliverAll(paddle, shop.programId, order.slice(0, 2).map((i) => events[i]!));
      await processEventsInOrder(api, ids);
      if (order[1] === 1) expect((await salesOf(shop.programId))[0]).toMatchObject({ earned: 0, state: 'reversed' });
      await processEventsInOrder(api, await deliverAll(paddle, shop.programId, [events[order[2]!]!]));
      expect((await salesOf(shop.programId))[0]).toMatchObject({ earned: 580, deducted: 0 });
    }
  });

  it('a pending adjustment moves no money; a signature older than the tolerance is refused; a rotation signs twice', async () => {
    const { shop, vars } = await shopFor(paddle);
    const pending = await fixture(paddle, '03-adjustment.created.refund', vars);
    pending.data.status = 'pending_approval';
    const [id] = await deliverAll(paddle, shop.programId, [pending]);
    await processEventsInOrder(api, [id!]);
    expect((await db.pool.query('SELECT status, reason FROM webhook_events WHERE id = $1', [id])).rows[0]).toEqual({ status: 'ignored', reason: 'adjustment refund is pending_approval: only an approved one moves money' });
    const first = JSON.stringify(await fixture(paddle, '01-transaction.completed', vars));
    // An hour old is a replay, not a delivery: Paddle signs each attempt when it sends it (5 minutes by default).
    const old = paddleSignature(first, PADDLE_SECRET, Math.floor(Date.now() / 1000) - 3600);
    const refused = await api.request('POST', `/api/v1/webhooks/paddle/${shop.programId}`, { raw: first, headers: { 'Paddle-Signature': old } });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('older than 300 seconds');
    expect((await db.pool.query('SELECT count(*)::int AS n FROM sales WHERE program_id = $1', [shop.programId])).rows[0].n).toBe(0);
    // Four minutes in a queue or behind a proxy is fine (Paddle's SDK would refuse it after 5 s).
    const ts = Math.floor(Date.now() / 1000) - 240;
    const rotated = `ts=${ts};h1=${hmac('the-old-secret', `${ts}:${first}`)};h1=${hmac(PADDLE_SECRET, `${ts}:${first}`)}`;
    expect((await api.request('POST', `/api/v1/webhooks/paddle/${shop.programId}`, { raw: first, headers: { 'Paddle-Signature': rotated } })).status).toBe(200);
  });
});

describe('money moved by a processor while a payout run holds the same commissions', () => {
  it.each(PROCESSORS)('$name: a refund processed during a payout run leaves the ledger equal to what the commissions earn, to the cent', async (processor) => {
    const { shop, vars } = await shopFor(processor);
    const deps = { pool: db.pool, secretBox: null, now: () => new Date(Date.now() + 60_000) };
    await payoutConfig.updatePayoutSettings(deps, OPERATOR, shop.programId, { hold_days: 0, payout_minimums_cents: {} });
    await processEventsInOrder(api, await deliverAll(processor, shop.programId, [await fixture(processor, processor.first, vars)]));
    await commissionLifecycle.approveDueCommissions(deps);
    // Half of the first payment refunded, delivered and processed while the run claims the commission.
    const refund = await fixture(processor, processor.refund, vars);
    if (processor.name === 'paddle') refund.data.transaction_id = `txn_${vars.run}_first`;
    else Object.assign(refund, { meta: { ...refund.meta, event_name: 'order_refunded' }, data: { ...refund.data, type: 'orders', id: `${vars.run}1` } });
    const [refundId] = await deliverAll(processor, shop.programId, [refund]);
    await Promise.all([payoutRuns.runPayouts(deps, OPERATOR, shop.programId), processEventsInOrder(api, [refundId!])]);
    const { rows } = await db.pool.query(
      `SELECT (SELECT sum(amount_cents - deducted_cents)::int FROM commissions WHERE program_id = $1) AS earned,
              (SELECT sum(pending_cents + approved_cents + paid_cents)::int FROM commission_ledger WHERE program_id = $1) AS ledger,
              (SELECT sum(deducted_cents)::int FROM commissions WHERE program_id = $1) AS deducted`,
      [shop.programId],
    );
    expect(rows[0]).toEqual({ earned: 290, ledger: 290, deducted: 290 });
  });
});

describe('lemon squeezy only', () => {
  const lemon = PROCESSORS[1]!;
  it("a subscription's first payment arrives as an order and as an initial invoice: one sale", async () => {
    const { shop, vars } = await shopFor(lemon);
    const ids = await deliverAll(lemon, shop.programId, [await fixture(lemon, '02-subscription_payment_success.initial', vars), await fixture(lemon, '01-order_created', vars)]);
    await processEventsInOrder(api, ids);
    expect((await salesOf(shop.programId)).map((s) => [s.txn, s.earned])).toEqual([[`ls_order_${vars.run}1`, 580]]);
    // refunded_amount is cumulative: the full refund after nothing counted deducts it all once, and again changes nothing.
    const full = await fixture(lemon, '05-order_refunded.full', vars);
    await processEventsInOrder(api, await deliverAll(lemon, shop.programId, [full]));
    const again = { ...full, data: { ...full.data, attributes: { ...full.data.attributes, updated_at: '2026-11-12T09:00:05.000000Z' } } };
    await processEventsInOrder(api, await deliverAll(lemon, shop.programId, [again]));
    expect((await salesOf(shop.programId)).map((s) => [s.earned, s.state])).toEqual([[0, 'reversed']]);
  });
});

describe('the processor port', () => {
  it('a new processor needs only its reading: a fake adapter defined here gets attribution, commission and the ledger through the same core', async () => {
    // A processor whose events are { pay: { id, cents, click } }.
    const fake: ProcessorAdapter = {
      name: 'paddle',
      handledTypes: ['pay'],
      eventsToSelect: ['pay'],
      envelope: (event: any) => ({ eventId: event.pay.id, type: 'pay', livemode: true, objectIds: [event.pay.id] }),
      read: (event: any, { livemode }) => ({
        kind: 'payment',
        payment: {
          processor: 'paddle', transactionId: event.pay.id, amountCents: event.pay.cents, currency: 'USD', occurredAt: new Date(), livemode,
          metadata: { clickId: event.pay.click, customerKey: null, customerKeyIsReference: false, programId: null },
          email: null, processorCustomerId: null, paymentIds: [event.pay.id], promotionRefs: [], isRecurring: false, saleType: 'payment', subscriptionId: null, eventName: 'pay',
        },
      }),
      customerOf: () => null,
    };
    const { shop, vars } = await shopFor(PROCESSORS[0]!);
    const event = { pay: { id: `fake_${vars.run}`, cents: 10_000, click: vars.click_id } };
    const held = new HeldTransaction(db.pool);
    const update = await applyFact(held, shop.programId, fake.read(event, { livemode: fake.envelope(event, { sandbox: false }).livemode }), new Date());
    await held.finish(async () => undefined);
    expect(update).toMatchObject({ status: 'processed', attributionStep: 'click_id' });
    expect((await salesOf(shop.programId)).map((s) => [s.txn, s.earned, s.state])).toEqual([[`fake_${vars.run}`, 2000, 'pending']]);
    const ledger = await db.pool.query("SELECT sum(pending_cents)::int AS pending FROM commission_ledger WHERE program_id = $1", [shop.programId]);
    expect(ledger.rows[0].pending).toBe(2000);
  });
});

describe('property: hostile signed bodies', () => {
  const fields = (names: string[]) => fc.dictionary(fc.oneof(fc.constantFrom(...names), hostileText), hostileValue, { maxKeys: 8 });
  const paddleBody = fc.record({
    event_id: fc.oneof(fc.string({ minLength: 1, maxLength: 20 }).map((id) => `evt_${id}`), hostileValue),
    event_type: fc.oneof(fc.constantFrom('transaction.completed', 'adjustment.created', 'adjustment.updated'), hostileText),
    occurred_at: fc.oneof(fc.constant(new Date().toISOString()), hostileValue),
    data: fc.oneof(fields(['id', 'customer_id', 'custom_data', 'currency_code', 'origin', 'subscription_id', 'billed_at', 'details', 'action', 'status', 'transaction_id', 'totals']), hostileValue),
  });
  const lemonBody = fc.record({
    meta: fc.record({ event_name: fc.oneof(fc.constantFrom('order_created', 'subscription_created', 'subscription_payment_success', 'order_refunded', 'subscription_payment_refunded'), hostileText), custom_data: hostileValue, test_mode: hostileValue }),
    data: fc.oneof(fc.record({ type: hostileText, id: hostileValue, attributes: fields(['customer_id', 'user_email', 'currency', 'status', 'total', 'tax', 'refunded_amount', 'created_at', 'updated_at', 'billing_reason', 'subscription_id']) }), hostileValue),
  });

  it.each([['paddle', paddleBody], ['lemonsqueezy', lemonBody]] as const)('%s: the intake never answers 5xx, and a stored event is finished without a crash', async (name, bodies) => {
    const processor = PROCESSORS.find((p) => p.name === name)!;
    const { shop } = await shopFor(processor);
    await fc.assert(
      fc.asyncProperty(bodies, async (event) => {
        const reply = await deliver(processor, shop.programId, event);
        expect(reply.status, JSON.stringify(reply.body)).toBeLessThan(500);
        if (reply.status !== 200) return;
        // What the worker does with it: finished (processed, ignored or failed for good), or waiting for data; never a crash retried for days.
        try {
          await handleProcessorEvent(workerDeps(api), reply.body.id);
        } catch (error) {
          expect(error).toBeInstanceOf(NotYetResolvable);
        }
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});

describe('currencies beyond the contract (docs/currencies.md)', () => {
  // Both send amounts in the currency's smallest unit: 5000 yen is 5000, stored as sent.
  const inYen = (processor: Processor) => (event: any) => {
    if (processor.name === 'paddle') {
      event.data.currency_code = 'JPY';
      Object.assign(event.data.details.totals, { subtotal: '5000', total: '5000', grand_total: '5000', earnings: '4700', fee: '300', currency_code: 'JPY' });
    } else {
      Object.assign(event.data.attributes, { currency: 'JPY', subtotal: 5000, total: 5000 });
    }
    return event;
  };
  for (const processor of PROCESSORS) {
    it(`${processor.name}: a JPY sale fails for good under the contract, and is 5000 yen once the program takes every currency`, async () => {
      const { shop, vars } = await shopFor(processor);
      const [refused] = await deliverAll(processor, shop.programId, [inYen(processor)(await fixture(processor, processor.first, vars))]);
      await processEventsInOrder(api, [refused!]);
      expect((await db.pool.query('SELECT status, reason FROM webhook_events WHERE id = $1', [refused])).rows[0]).toEqual({ status: 'failed', reason: 'currency JPY is not supported' });

      const turned = await api.request('PATCH', `/api/v1/admin/programs/${shop.programId}`, { body: { accept_all_currencies: true }, headers: adminHeaders });
      expect(turned.status).toBe(200);
      // A new transaction (another run's ids) for the same customer (the first run's custom data).
      const again = inYen(processor)(await fixture(processor, processor.first, { ...vars, run: `${vars.run}b` }));
      processor.setCustom(again, processor.custom(await fixture(processor, processor.first, vars))!);
      await processEventsInOrder(api, await deliverAll(processor, shop.programId, [again]));
      const { rows } = await db.pool.query(
        'SELECT s.currency, s.amount_cents::int AS sale, c.amount_cents::int AS commission FROM sales s JOIN commissions c ON c.sale_id = s.id WHERE s.program_id = $1',
        [shop.programId],
      );
      expect(rows).toEqual([{ currency: 'JPY', sale: 5000, commission: 1000 }]);
    });
  }
});
