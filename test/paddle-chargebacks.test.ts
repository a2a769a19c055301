// Paddle chargebacks count by adjustment, not by transaction: each chargeback and each
// chargeback_reverse is its own adjustment with its own id and amount.
import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFixture } from '../src/platform/fixtures.js';
import { type TestApi, type TestDatabase, adminHeaders, createTestDatabase, seedProgram, startTestApi, trackClick } from './support/harness.js';
import { processEventsInOrder } from './support/stripe.js';

const SECRET = 'pdl_ntfset_chargebacks_secret_0123456789';
const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'paddle');

let db: TestDatabase;
let api: TestApi;
beforeAll(async () => {
  db = await createTestDatabase();
  api = await startTestApi(db.pool, { AFFIX_SECRET_KEY: 'paddle-chargebacks-secret-key-0123456789' }, { queueUrl: db.url });
});
afterAll(async () => {
  await api.close();
  await db.drop();
});

const sign = (body: string) => {
  const ts = Math.floor(Date.now() / 1000);
  return `ts=${ts};h1=${createHmac('sha256', SECRET).update(`${ts}:${body}`).digest('hex')}`;
};

let runs = 0;
/** A program at 20 %, a click, a lead and the first Paddle transaction (2900 cents: commission 580) processed. */
async function paidSale() {
  const shop = await seedProgram(api, { commission_type: 'percent', commission_rate: 20 });
  expect((await api.request('PATCH', `/api/v1/admin/programs/${shop.programId}/processors/paddle`, { body: { webhook_secret: SECRET }, headers: adminHeaders })).status).toBe(200);
  const clickId = await trackClick(api, shop.affiliateUrl);
  const run = `cb${++runs}${Date.now()}`;
  const vars = { run, click_id: clickId, customer_key: `user_${run}`, program_id: shop.programId, email: `buyer_${run}@example.com` };
  expect((await api.request('POST', '/api/v1/track/lead', { body: { click_id: clickId, customer_key: vars.customer_key, email: vars.email } })).status).toBe(200);
  const deliver = async (events: unknown[]) => {
    const ids: number[] = [];
    for (const event of events) {
      const body = JSON.stringify(event);
      const reply = await api.request('POST', `/api/v1/webhooks/paddle/${shop.programId}`, { raw: body, headers: { 'Content-Type': 'application/json', 'Paddle-Signature': sign(body) } });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      ids.push(reply.body.id);
    }
    await processEventsInOrder(api, ids);
  };
  await deliver([await loadFixture(join(FIXTURES, '01-transaction.completed.json'), vars)]);
  /** A chargeback or its reversal on the first transaction, with its own id and amount. */
  const adjustment = async (name: string, action: 'chargeback' | 'chargeback_reverse', cents: number, eventType = 'adjustment.created') => {
    const event = (await loadFixture(join(FIXTURES, action === 'chargeback' ? '04-adjustment.created.chargeback.json' : '05-adjustment.created.chargeback-reverse.json'), vars)) as any;
    event.event_id = `evt_${run}_${name}_${eventType}`;
    event.event_type = eventType;
    event.data.id = `adj_${run}_${name}`;
    event.data.type = 'partial';
    event.data.totals = { ...event.data.totals, subtotal: String(cents), total: String(cents) };
    return event;
  };
  return { shop, deliver, adjustment };
}

async function ledgerOf(programId: number) {
  const { rows } = await db.pool.query(
    `SELECT c.amount_cents AS amount, c.refunded_total_cents AS refunded, c.deducted_cents AS deducted, cs.earned_cents AS earned, cs.state
       FROM sales s JOIN commissions c ON c.sale_id = s.id JOIN commission_states cs ON cs.id = c.id WHERE s.program_id = $1`,
    [programId],
  );
  expect(rows).toHaveLength(1);
  return { amount: Number(rows[0].amount), refunded: Number(rows[0].refunded), deducted: Number(rows[0].deducted), earned: Number(rows[0].earned), state: rows[0].state };
}

describe('paddle chargebacks count by adjustment', () => {
  it('two partial chargebacks on one transaction each count by their own amount', async () => {
    const { shop, deliver, adjustment } = await paidSale();
    await deliver([await adjustment('cb1', 'chargeback', 1000)]);
    // 580 x 1000 / 2900 = 200
    expect(await ledgerOf(shop.programId)).toMatchObject({ amount: 580, refunded: 1000, deducted: 200, earned: 380 });
    await deliver([await adjustment('cb2', 'chargeback', 500)]);
    // 580 x 1500 / 2900 = 300
    expect(await ledgerOf(shop.programId)).toMatchObject({ amount: 580, refunded: 1500, deducted: 300, earned: 280 });
  });

  it('a chargeback, its partial reverse, then a second chargeback: the ledger matches to the cent; redeliveries change nothing', async () => {
    const { shop, deliver, adjustment } = await paidSale();
    const first = await adjustment('cb1', 'chargeback', 1000);
    const reverse = await adjustment('rev1', 'chargeback_reverse', 400);
    const second = await adjustment('cb2', 'chargeback', 700);
    await deliver([first]);
    expect(await ledgerOf(shop.programId)).toMatchObject({ refunded: 1000, deducted: 200, earned: 380 });
    await deliver([reverse]);
    // 600 stands charged back: 580 x 600 / 2900 = 120
    expect(await ledgerOf(shop.programId)).toMatchObject({ refunded: 600, deducted: 120, earned: 460 });
    await deliver([second]);
    // 1300 stands charged back: 580 x 1300 / 2900 = 260
    const settled = { amount: 580, refunded: 1300, deducted: 260, earned: 320 };
    expect(await ledgerOf(shop.programId)).toMatchObject(settled);

    // The same deliveries again, and each adjustment again as adjustment.updated (a new event id).
    await deliver([first, reverse, second]);
    await deliver([await adjustment('cb1', 'chargeback', 1000, 'adjustment.updated'), await adjustment('rev1', 'chargeback_reverse', 400, 'adjustment.updated'), await adjustment('cb2', 'chargeback', 700, 'adjustment.updated')]);
    expect(await ledgerOf(shop.programId)).toMatchObject(settled);

    const { rows } = await db.pool.query(
      `SELECT r.reason, r.amount_cents::int AS amount, r.deduction_cents::int AS deduction FROM refunds r JOIN sales s ON s.id = r.sale_id WHERE s.program_id = $1 ORDER BY r.id`,
      [shop.programId],
    );
    expect(rows).toEqual([
      { reason: 'chargeback', amount: 1000, deduction: 200 },
      { reason: 'chargeback_reversed', amount: 400, deduction: 80 },
      { reason: 'chargeback', amount: 700, deduction: 140 },
    ]);
  });

  it('any delivery order of the same adjustments ends at the same ledger', async () => {
    const { shop, deliver, adjustment } = await paidSale();
    await deliver([await adjustment('rev1', 'chargeback_reverse', 400), await adjustment('cb2', 'chargeback', 700), await adjustment('cb1', 'chargeback', 1000)]);
    expect(await ledgerOf(shop.programId)).toMatchObject({ amount: 580, refunded: 1300, deducted: 260, earned: 320 });
  });
});
