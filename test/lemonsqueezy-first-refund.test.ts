// Lemon Squeezy: the refund of a subscription's first payment. That payment is one sale, the
// order's; its initial invoice's refund finds that sale through subscription_created (which names
// the order), and counts once beside order_refunded for the same money, in any order, redelivered.
import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFixture } from '../src/platform/fixtures.js';
import { type TestApi, type TestDatabase, adminHeaders, createTestDatabase, seedProgram, startTestApi, trackClick } from './support/harness.js';
import { atTheSameInstant } from './support/money.js';
import { processEventsInOrder, workerDeps } from './support/stripe.js';
import { handleProcessorEvent } from '../src/jobs/processor-event-job.js';

const SECRET = 'lemon-signing-secret-0123456789';
const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'lemonsqueezy');

let db: TestDatabase;
let api: TestApi;
beforeAll(async () => {
  db = await createTestDatabase();
  api = await startTestApi(db.pool, { AFFIX_SECRET_KEY: 'ls-first-refund-test-secret-key-0123456789' }, { queueUrl: db.url });
});
afterAll(async () => {
  await api.close();
  await db.drop();
});

let runs = 0;
/** A program at 20 % with a Lemon Squeezy endpoint, a click and a lead. */
async function shop() {
  const program = await seedProgram(api, { commission_type: 'percent', commission_rate: 20 });
  const saved = await api.request('PATCH', `/api/v1/admin/programs/${program.programId}/processors/lemonsqueezy`, { body: { webhook_secret: SECRET }, headers: adminHeaders });
  expect(saved.status).toBe(200);
  const clickId = await trackClick(api, program.affiliateUrl);
  const run = `f${++runs}${Date.now()}`;
  const vars = { run, click_id: clickId, customer_key: `user_${run}`, program_id: program.programId, email: `buyer_${run}@example.com` };
  const lead = await api.request('POST', '/api/v1/track/lead', { body: { click_id: clickId, customer_key: vars.customer_key, email: vars.email } });
  expect(lead.status).toBe(200);
  const events = {
    order: await loadFixture(join(FIXTURES, '01-order_created.json'), vars),
    subscription: await loadFixture(join(FIXTURES, '06-subscription_created.json'), vars),
    initial: await loadFixture(join(FIXTURES, '02-subscription_payment_success.initial.json'), vars),
    invoiceRefund: await loadFixture(join(FIXTURES, '07-subscription_payment_refunded.initial.json'), vars),
    orderRefund: await loadFixture(join(FIXTURES, '05-order_refunded.full.json'), vars),
  };
  return { programId: program.programId, run, events };
}

async function deliver(programId: number, events: unknown[]): Promise<number[]> {
  const ids: number[] = [];
  for (const event of events) {
    const body = JSON.stringify(event);
    const reply = await api.request('POST', `/api/v1/webhooks/lemonsqueezy/${programId}`, {
      raw: body,
      headers: { 'Content-Type': 'application/json', 'X-Signature': createHmac('sha256', SECRET).update(body).digest('hex') },
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    ids.push(reply.body.id);
  }
  return ids;
}

async function saleOf(programId: number) {
  const { rows } = await db.pool.query(
    `SELECT s.processor_event_id AS txn, cs.state, cs.earned_cents AS earned, c.deducted_cents AS deducted,
            (SELECT coalesce(sum(r.amount_cents), 0)::int FROM refunds r WHERE r.sale_id = s.id AND r.reverted_at IS NULL) AS refunded
       FROM sales s LEFT JOIN commission_states cs ON cs.sale_id = s.id LEFT JOIN commissions c ON c.id = cs.id
      WHERE s.program_id = $1 ORDER BY s.id`,
    [programId],
  );
  return rows;
}

type Name = 'order' | 'subscription' | 'initial' | 'invoiceRefund' | 'orderRefund';
const ORDERS: [string, Name[]][] = [
  ['as Lemon Squeezy sends them, the invoice refund only', ['order', 'subscription', 'initial', 'invoiceRefund']],
  ['both refunds, the invoice one first', ['order', 'subscription', 'initial', 'invoiceRefund', 'orderRefund']],
  ['both refunds, the order one first', ['order', 'subscription', 'initial', 'orderRefund', 'invoiceRefund']],
  ['the refunds before the order and the subscription', ['invoiceRefund', 'orderRefund', 'initial', 'subscription', 'order']],
  ['the invoice refund before the subscription links it', ['order', 'invoiceRefund', 'initial', 'subscription']],
];

describe("lemon squeezy: refund of a subscription's first payment", () => {
  it.each(ORDERS)('%s: reversed, 580 deducted, 2900 refunded, once (redeliveries too)', async (_, order) => {
    const { programId, run, events } = await shop();
    await processEventsInOrder(api, await deliver(programId, order.map((name) => events[name])));
    const expected = [{ txn: `ls_order_${run}1`, state: 'reversed', earned: 0, deducted: 580, refunded: 2900 }];
    expect(await saleOf(programId)).toEqual(expected);
    // Redelivered (same payloads, then everything again in reverse order): nothing more is counted.
    await processEventsInOrder(api, await deliver(programId, [...order].reverse().map((name) => events[name])));
    expect(await saleOf(programId)).toEqual(expected);
  });
});

describe('lemon squeezy: both refunds of the same money at the same instant', () => {
  // Two workers (two connections) take order_refunded and the initial invoice's refund at once:
  // each reads what is already refunded before the other has written it.
  it.each([
    ['the whole payment', 2900, { state: 'reversed', earned: 0, deducted: 580, refunded: 2900 }],
    ['part of it', 1000, { state: 'pending', earned: 380, deducted: 200, refunded: 1000 }],
  ] as const)('%s: counted once', async (_, cents, expected) => {
    const { programId, run, events } = await shop();
    await processEventsInOrder(api, await deliver(programId, [events.order, events.subscription, events.initial]));
    for (const refund of [events.orderRefund, events.invoiceRefund] as any[]) {
      refund.data.attributes.refunded_amount = cents;
      refund.data.attributes.refunded = cents === refund.data.attributes.total;
    }
    const [orderRefund, invoiceRefund] = await deliver(programId, [events.orderRefund, events.invoiceRefund]);
    const commissionId = Number((await db.pool.query('SELECT c.id FROM commissions c JOIN sales s ON s.id = c.sale_id WHERE s.program_id = $1', [programId])).rows[0].id);
    const outcomes = await atTheSameInstant(db.url, commissionId, [() => handleProcessorEvent(workerDeps(api), orderRefund!), () => handleProcessorEvent(workerDeps(api), invoiceRefund!)]);
    expect(outcomes.map((o) => (o.status === 'rejected' ? String(o.reason) : o.status))).toEqual(['fulfilled', 'fulfilled']);
    expect(await saleOf(programId)).toEqual([{ txn: `ls_order_${run}1`, ...expected }]);
    // Whatever either worker left to retry changes nothing more.
    await processEventsInOrder(api, [orderRefund!, invoiceRefund!]);
    expect(await saleOf(programId)).toEqual([{ txn: `ls_order_${run}1`, ...expected }]);
  });
});
