// Paddle chargebacks count by adjustment, not by transaction: each chargeback and each
// chargeback_reverse is its own adjustment with its own id and amount.
import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFixture } from '../src/platform/fixtures.js';
import { type TestApi, type TestDatabase, adminHeaders, createTestDatabase, seedProgram, startTestApi, trackClick } from './support/harness.js';
import { atTheSameInstant } from './support/money.js';
import { processEventsInOrder, workerDeps } from './support/stripe.js';
import { handleProcessorEvent } from '../src/jobs/processor-event-job.js';

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
  /** Stores the events (the intake's part) and returns their inbox ids, for a worker to take. */
  const store = async (events: unknown[]) => {
    const ids: number[] = [];
    for (const event of events) {
      const body = JSON.stringify(event);
      const reply = await api.request('POST', `/api/v1/webhooks/paddle/${shop.programId}`, { raw: body, headers: { 'Content-Type': 'application/json', 'Paddle-Signature': sign(body) } });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      ids.push(reply.body.id);
    }
    return ids;
  };
  const deliver = async (events: unknown[]) => processEventsInOrder(api, await store(events));
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
  return { shop, store, deliver, adjustment };
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

/** The commission's ledger entries add up to exactly what it earns after its deductions. */
async function expectLedgerMatches(programId: number) {
  const { rows } = await db.pool.query(
    `SELECT (c.amount_cents - c.deducted_cents)::bigint AS net, coalesce(sum(l.pending_cents + l.approved_cents + l.paid_cents), 0)::bigint AS ledger
       FROM commissions c LEFT JOIN commission_ledger l ON l.commission_id = c.id WHERE c.program_id = $1 GROUP BY c.id`,
    [programId],
  );
  expect(rows).toHaveLength(1);
  expect(Number(rows[0].ledger)).toBe(Number(rows[0].net));
}

function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));
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

  it('after a partial refund, a chargeback larger than what is left counts only what is left; its reverse gives back exactly that part', async () => {
    const { shop, deliver, adjustment } = await paidSale();
    const refund = await adjustment('r1', 'chargeback', 2000);
    refund.data.action = 'refund';
    await deliver([refund]);
    // 580 x 2000 / 2900 = 400
    const refunded = { amount: 580, refunded: 2000, deducted: 400, earned: 180, state: 'pending' };
    expect(await ledgerOf(shop.programId)).toMatchObject(refunded);
    // The whole sale charged back: only the 900 not refunded is left to take.
    await deliver([await adjustment('cb1', 'chargeback', 2900)]);
    const all = { amount: 580, refunded: 2900, deducted: 580, earned: 0, state: 'reversed' };
    expect(await ledgerOf(shop.programId)).toMatchObject(all);
    // 1000 given back: 1900 still stands charged back, more than the 900 it took; nothing comes back.
    await deliver([await adjustment('rev1', 'chargeback_reverse', 1000)]);
    expect(await ledgerOf(shop.programId)).toMatchObject(all);
    // The rest given back: exactly the 900 it took (the refund stands).
    await deliver([await adjustment('rev2', 'chargeback_reverse', 1900)]);
    expect(await ledgerOf(shop.programId)).toMatchObject(refunded);
  });

  it('a chargeback and its whole reverse after a partial refund: back to the refund alone', async () => {
    const { shop, deliver, adjustment } = await paidSale();
    const refund = await adjustment('r1', 'chargeback', 2000);
    refund.data.action = 'refund';
    await deliver([refund, await adjustment('cb1', 'chargeback', 2900)]);
    expect(await ledgerOf(shop.programId)).toMatchObject({ refunded: 2900, deducted: 580, earned: 0 });
    await deliver([await adjustment('rev1', 'chargeback_reverse', 2900)]);
    expect(await ledgerOf(shop.programId)).toMatchObject({ amount: 580, refunded: 2000, deducted: 400, earned: 180, state: 'pending' });
  });

  it('two chargebacks of one transaction taken by two workers at the same instant: both count, once each', async () => {
    const { shop, store, deliver, adjustment } = await paidSale();
    const ids = await store([await adjustment('cb1', 'chargeback', 1000), await adjustment('cb2', 'chargeback', 500)]);
    const commissionId = Number((await db.pool.query('SELECT c.id FROM commissions c JOIN sales s ON s.id = c.sale_id WHERE s.program_id = $1', [shop.programId])).rows[0].id);
    const outcomes = await atTheSameInstant(db.url, commissionId, ids.map((id) => () => handleProcessorEvent(workerDeps(api), id)));
    expect(outcomes.map((o) => (o.status === 'rejected' ? String(o.reason) : o.status))).toEqual(['fulfilled', 'fulfilled']);
    // 580 x 1500 / 2900 = 300
    const both = { amount: 580, refunded: 1500, deducted: 300, earned: 280 };
    expect(await ledgerOf(shop.programId)).toMatchObject(both);
    // Whatever either left to retry, and a redelivery, change nothing more.
    await processEventsInOrder(api, ids);
    await deliver([await adjustment('cb1', 'chargeback', 1000), await adjustment('cb2', 'chargeback', 500)]);
    expect(await ledgerOf(shop.programId)).toMatchObject(both);
    const { rows } = await db.pool.query(`SELECT r.amount_cents::int AS amount FROM refunds r JOIN sales s ON s.id = r.sale_id WHERE s.program_id = $1 ORDER BY r.amount_cents`, [shop.programId]);
    expect(rows).toEqual([{ amount: 500 }, { amount: 1000 }]);
  });

  it('a refund while the whole sale is charged back is recorded; the chargeback reversed later leaves it counted', async () => {
    const { shop, deliver, adjustment } = await paidSale();
    const chargeback = await adjustment('cb1', 'chargeback', 2900);
    const refund = await adjustment('r1', 'chargeback', 1000);
    refund.data.action = 'refund';
    const reverse = await adjustment('rev1', 'chargeback_reverse', 2900);
    await deliver([chargeback]);
    const all = { amount: 580, refunded: 2900, deducted: 580, earned: 0, state: 'reversed' };
    expect(await ledgerOf(shop.programId)).toMatchObject(all);
    // The refund is the buyer's money too: 1000 of the 2900 are now the refund's, the total stays at the sale.
    await deliver([refund]);
    expect(await ledgerOf(shop.programId)).toMatchObject(all);
    await expectLedgerMatches(shop.programId);
    // The chargeback reversed: the refund stands. 580 x 1000 / 2900 = 200
    await deliver([reverse]);
    const settled = { amount: 580, refunded: 1000, deducted: 200, earned: 380, state: 'pending' };
    expect(await ledgerOf(shop.programId)).toMatchObject(settled);
    await expectLedgerMatches(shop.programId);

    // Delivered again, and as adjustment.updated (new event ids): nothing changes.
    await deliver([chargeback, refund, reverse]);
    const updatedRefund = await adjustment('r1', 'chargeback', 1000, 'adjustment.updated');
    updatedRefund.data.action = 'refund';
    await deliver([await adjustment('cb1', 'chargeback', 2900, 'adjustment.updated'), updatedRefund, await adjustment('rev1', 'chargeback_reverse', 2900, 'adjustment.updated')]);
    expect(await ledgerOf(shop.programId)).toMatchObject(settled);
    await expectLedgerMatches(shop.programId);
    const { rows } = await db.pool.query(
      `SELECT r.reason, r.amount_cents::int AS amount FROM refunds r JOIN sales s ON s.id = r.sale_id WHERE s.program_id = $1 ORDER BY r.id`,
      [shop.programId],
    );
    expect(rows).toEqual([
      { reason: 'chargeback', amount: 2900 },
      { reason: 'refund', amount: 1000 },
      { reason: 'chargeback_reversed', amount: 2900 },
    ]);
  });

  it('a chargeback, a refund and the chargeback\'s reverse end the same in every delivery order', async () => {
    const steps = ['chargeback', 'refund', 'reverse'] as const;
    for (const order of permutations([...steps])) {
      const { shop, deliver, adjustment } = await paidSale();
      for (const step of order) {
        if (step === 'chargeback') await deliver([await adjustment('cb1', 'chargeback', 2900)]);
        if (step === 'reverse') await deliver([await adjustment('rev1', 'chargeback_reverse', 2900)]);
        if (step === 'refund') {
          const refund = await adjustment('r1', 'chargeback', 1000);
          refund.data.action = 'refund';
          await deliver([refund]);
        }
      }
      expect({ order, ...(await ledgerOf(shop.programId)) }).toMatchObject({ order, amount: 580, refunded: 1000, deducted: 200, earned: 380 });
      await expectLedgerMatches(shop.programId);
    }
  });
});
