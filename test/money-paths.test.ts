// Money on every real billing path (programs at 20 %: a 4900 sale earns 980, a 2900 invoice 580).
// One test per finding, written as the finding reads; each failed before the fix it names.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManagementDeps } from '../src/app/programs/management.js';
import { OPERATOR } from '../src/app/accounts/scope.js';
import * as payoutConfig from '../src/app/money/payout-settings.js';
import * as commissionLifecycle from '../src/app/money/commission-lifecycle.js';
import * as payoutRuns from '../src/app/money/payout-runs.js';
import { explainSale } from '../src/app/reads/assistant-reads.js';
import { activity } from '../src/db/reads/program-activity.js';
import { moneyTotals } from '../src/db/reads/page-rollups.js';
import { commissionsByState } from '../src/db/partners/portal.js';
import { lockPayableItems, lockProgramPayouts } from '../src/db/money/commissions-and-payouts.js';
import { partnerStats } from '../src/db/reads/assistant-insights.js';
import { PgStore } from '../src/db/tracking/store.js';
import { describeCommission } from '../src/core/programs.js';
import { getEvent } from '../src/db/inbox/event-browsing.js';
import { type SeededProgram, type TestApi, type TestDatabase, addPartnerLink, adminHeaders, bearer, createTestDatabase, seedProgram, startTestApi } from './support/harness.js';
import { apiRefund, apiSale, uid } from './support/money.js';
import { type Step, deliver, deliverSteps, fixture, processEventsInOrder, seedStripeCustomer, sign } from './support/stripe.js';
import { nockForThisFile } from './support/nock.js';

const nock = nockForThisFile();

let db: TestDatabase;
let api: TestApi;
let clock = new Date();
const deps = (): ManagementDeps => ({ pool: db.pool, secretBox: null, now: () => clock });
const DAY = 86_400;

beforeAll(async () => {
  db = await createTestDatabase();
  // Intake only: the tests run each event's handler in the order under test.
  api = await startTestApi(db.pool, { AFFIX_SECRET_KEY: 'money-paths-test-key-0123456789' }, { queueUrl: db.url });
});
afterAll(async () => {
  await api.close();
  await db.drop();
});

/** A Stripe-connected program at 20 % with a partner, a click and a lead for one customer. */
async function stripeProgram(program: Record<string, unknown> = {}) {
  return seedStripeCustomer(api, { commission_type: 'percent', commission_rate: 20, ...program });
}

async function play(shop: SeededProgram, vars: Record<string, string | number>, steps: Step[]) {
  await processEventsInOrder(api, await deliverSteps(api, shop, vars, steps));
}

/** Each sale of the program with its commission as every surface reads it. */
async function salesOf(programId: number) {
  const { rows } = await db.pool.query(
    `SELECT s.processor_event_id AS txn, s.amount_cents AS amount, s.commission_reason AS reason, cs.state, cs.earned_cents AS earned,
            c.deducted_cents AS deducted, c.refunded_total_cents AS refunded
       FROM sales s LEFT JOIN commission_states cs ON cs.sale_id = s.id LEFT JOIN commissions c ON c.id = cs.id
      WHERE s.program_id = $1 ORDER BY s.occurred_at, s.processor_event_id`,
    [programId],
  );
  return rows;
}

/** What the ledger says the partners are owed, per bucket. */
async function ledgerOf(programId: number) {
  const { rows } = await db.pool.query(
    `SELECT coalesce(sum(pending_cents), 0)::bigint AS pending, coalesce(sum(approved_cents), 0)::bigint AS approved, coalesce(sum(paid_cents), 0)::bigint AS paid
       FROM commission_ledger WHERE program_id = $1`,
    [programId],
  );
  return rows[0];
}

/** The ledger's approved bucket is exactly what open payouts pay plus what the next run would (approved commissions and clawbacks no payout claimed). */
async function expectOwedAsLedger(programId: number) {
  const { rows } = await db.pool.query(
    `SELECT (SELECT coalesce(sum(amount_cents), 0) FROM payouts WHERE program_id = $1 AND status = 'pending')
          + (SELECT coalesce(sum(amount_cents - deducted_cents), 0) FROM commissions WHERE program_id = $1 AND stage = 'approved' AND payout_id IS NULL)
          + (SELECT coalesce(sum(amount_cents), 0) FROM clawbacks WHERE program_id = $1 AND payout_id IS NULL) AS owed`,
    [programId],
  );
  expect((await ledgerOf(programId)).approved).toBe(Number(rows[0].owed));
}

const permutations = <T>(items: T[]): T[][] =>
  items.length <= 1 ? [items] : items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));

/** Plays the scenario in every order of its events; each order must end in `expected`. */
async function inEveryOrder(steps: Step[], check: (programId: number, run: string) => Promise<void>) {
  for (const order of permutations(steps)) {
    const { shop, vars, run } = await stripeProgram();
    await play(shop, vars, order);
    await check(shop.programId, run);
  }
}

/** A 4900 payment, then a dispute opened and closed on its charge. */
const disputed = (created: string, closed: string): Step[] => [
  { fixture: 'checkout.session.completed.payment' },
  { fixture: created, at: 10 },
  { fixture: closed, at: 20 },
];

/** A program at 20 %, commissions approved at once, no minimum. */
async function payingProgram() {
  const shop = await seedProgram(api, { commission_rate: 20 });
  await payoutConfig.updatePayoutSettings(deps(), OPERATOR, shop.programId, { hold_days: 0, payout_minimums_cents: {} });
  return shop;
}
const approveAll = async () => {
  clock = new Date(Date.now() + 60_000);
  await commissionLifecycle.approveDueCommissions(deps());
};
const paid = async (programId: number) =>
  Number((await db.pool.query("SELECT coalesce(sum(amount_cents), 0)::bigint AS s FROM payouts WHERE program_id = $1 AND status = 'paid'", [programId])).rows[0].s);

describe('1. a free trial or 100 %-off conversion pays the first paid invoice', () => {
  it('Stripe: the $0 signup invoice is no sale; the first paid invoice (subscription_cycle) earns 580, in every order', async () => {
    await inEveryOrder(
      [
        { fixture: 'checkout.session.completed.subscription' },
        { fixture: 'invoice.payment_succeeded.trial-start', at: 1 },
        { fixture: 'invoice.payment_succeeded.after-trial', at: 14 * DAY },
      ],
      async (programId, run) => {
        expect(await salesOf(programId)).toEqual([
          { txn: `in_${run}_after_trial`, amount: 2900, reason: null, state: 'pending', earned: 580, deducted: 0, refunded: 0 },
        ]);
        const zero = await db.pool.query(`SELECT status, reason FROM webhook_events WHERE event_key = $1`, [`evt_${run}_invoice_payment_succeeded_trial_start`]);
        expect(zero.rows[0]).toEqual({ status: 'ignored', reason: 'amount_paid is not positive: a $0 invoice is no sale' });
      },
    );
  });

  it('API: a first sale sent with isRecurring: true (a cycle invoice after a trial) earns 580', async () => {
    const shop = await seedProgram(api, { commission_rate: 20 });
    const { reply } = await apiSale(api, shop, 2900, { isRecurring: true });
    expect(reply.body).toMatchObject({ commission_amount_cents: 580, commission_id: expect.any(Number) });
    expect(reply.body).not.toHaveProperty('commission_reason');
  });
});

describe('2. the earliest paid sale earns the first-sale commission, whatever order it is processed in', () => {
  it('a 9000 payment made an hour ago, processed before a 1000 payment made two days ago: the partner earns 200, not 1800', async () => {
    const { shop, vars, run } = await stripeProgram();
    const payment = (name: string, cents: number) => (e: any) => Object.assign(e.data.object, { id: `cs_${run}_${name}`, amount_total: cents, payment_intent: `pi_${run}_${name}` });
    await play(shop, vars, [
      { fixture: 'checkout.session.completed.payment', at: 2 * DAY - 3600, change: (e) => { payment('big', 9000)(e); e.id = `evt_${run}_big`; } },
      { fixture: 'checkout.session.completed.payment', at: 0, change: (e) => { payment('small', 1000)(e); e.id = `evt_${run}_small`; } },
    ]);
    expect(await salesOf(shop.programId)).toEqual([
      { txn: `cs_${run}_small`, amount: 1000, reason: null, state: 'pending', earned: 200, deducted: 0, refunded: 0 },
      { txn: `cs_${run}_big`, amount: 9000, reason: 'not_first_sale', state: 'moved', earned: 0, deducted: 1800, refunded: 0 },
    ]);
    expect(await ledgerOf(shop.programId)).toEqual({ pending: 200, approved: 0, paid: 0 });
    const moved = await db.pool.query(`SELECT kind, pending_cents FROM commission_ledger WHERE program_id = $1 AND kind = 'moved'`, [shop.programId]);
    expect(moved.rows).toEqual([{ kind: 'moved', pending_cents: -1800 }]);
  });

  it('an upgrade invoice (1550) processed before the subscription\'s create invoice (2900): 580, in every order', async () => {
    await inEveryOrder(
      [{ fixture: 'invoice.payment_succeeded.create' }, { fixture: 'invoice.payment_succeeded.upgrade', at: 3600 }],
      async (programId, run) => {
        const [create, upgrade] = await salesOf(programId);
        expect(create).toEqual({ txn: `in_${run}_create`, amount: 2900, reason: null, state: 'pending', earned: 580, deducted: 0, refunded: 0 });
        // Processed first, the upgrade's commission moved (state moved, nothing earned); processed second, it never had one.
        expect(upgrade).toMatchObject({ txn: `in_${run}_upgrade`, amount: 1550, reason: 'not_first_sale' });
        expect(upgrade.earned ?? 0).toBe(0);
        expect(await ledgerOf(programId)).toEqual({ pending: 580, approved: 0, paid: 0 });
      },
    );
  });

  it('a later sale whose commission was already paid: the move is a clawback the next payout nets', async () => {
    const shop = await payingProgram();
    const later = await apiSale(api, shop, 9000, { customerKey: uid('late') });
    await approveAll();
    const first = await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId);
    await payoutRuns.markPayoutPaid(deps(), OPERATOR, shop.programId, first.payouts[0]!.id, { reference: 'p1' });
    expect(await paid(shop.programId)).toBe(1800);
    // The same customer's earlier payment arrives: it earns 200, the 1800 already paid is owed back.
    const customerKey = (await db.pool.query('SELECT customer_key FROM customers WHERE click_id = $1', [later.clickId])).rows[0].customer_key;
    const earlier = await apiSale(api, shop, 1000, { customerKey, clickId: later.clickId, occurredAt: new Date(Date.now() - 2 * DAY * 1000) });
    expect(earlier.reply.body).toMatchObject({ commission_amount_cents: 200 });
    const clawback = await db.pool.query('SELECT amount_cents FROM clawbacks WHERE program_id = $1', [shop.programId]);
    expect(clawback.rows).toEqual([{ amount_cents: -1800 }]);
    // Later commissions net the debt: 200 approved + 5000 (a new customer's 25000) - 1800 = 3400.
    await apiSale(api, shop, 25_000);
    await approveAll();
    const next = await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId);
    expect(next.payouts.map((p) => p.amountCents)).toEqual([3400]);
  });
});

describe('3. a dispute inquiry changes nothing', () => {
  it('warning_needs_response then warning_closed: the commission stays 980, in every order', async () => {
    await inEveryOrder(
      disputed('charge.dispute.created.inquiry', 'charge.dispute.closed.inquiry'),
      async (programId, run) => {
        expect(await salesOf(programId)).toEqual([{ txn: `cs_${run}_payment`, amount: 4900, reason: null, state: 'pending', earned: 980, deducted: 0, refunded: 0 }]);
        const closed = await db.pool.query('SELECT status, reason FROM webhook_events WHERE event_key = $1', [`evt_${run}_charge_dispute_closed_inquiry`]);
        expect(closed.rows[0]).toEqual({ status: 'ignored', reason: 'inquiry (warning_closed): no money taken, commission unchanged' });
      },
    );
  });
});

describe('4. a partial dispute deducts in proportion', () => {
  it('dispute.amount 1000 on a 4900 charge, lost: 200 deducted and 1000 refunded, in every order', async () => {
    await inEveryOrder(
      disputed('charge.dispute.created.partial', 'charge.dispute.closed.partial-lost'),
      async (programId, run) => {
        expect(await salesOf(programId)).toEqual([{ txn: `cs_${run}_payment`, amount: 4900, reason: null, state: 'pending', earned: 780, deducted: 200, refunded: 1000 }]);
      },
    );
  });
});

describe('5. signed webhook bodies as large as Stripe sends are stored', () => {
  it('a 3 MiB signed event is answered 2xx and stored; a body over the limit is refused naming the limit that applied', async () => {
    const { shop, vars, run } = await stripeProgram();
    const event = await fixture('checkout.session.completed.payment', vars);
    // A checkout with a very long line-item list, as Stripe can send.
    event.data.object.metadata.padding = 'x'.repeat(3 * 1024 * 1024);
    const reply = await deliver(api, `/api/v1/webhooks/stripe/${shop.programId}`, event);
    expect(reply.status).toBe(200);
    await processEventsInOrder(api, [reply.body.id]);
    expect(await salesOf(shop.programId)).toEqual([expect.objectContaining({ txn: `cs_${run}_payment`, earned: 980 })]);

    const huge = JSON.stringify({ ...event, id: `${event.id}_huge`, data: { object: { ...event.data.object, metadata: { padding: 'x'.repeat(9 * 1024 * 1024) } } } });
    const refused = await api.request('POST', `/api/v1/webhooks/stripe/${shop.programId}`, {
      raw: huge,
      headers: { 'Content-Type': 'application/json', 'Stripe-Signature': sign(huge, 'whsec_test_affix_program_secret') },
    });
    expect(refused.status).toBe(413);
    expect(refused.body.error.message).toBe('Webhook body is larger than 8mb (AFFIX_WEBHOOK_BODY_LIMIT)');
  });
});

describe('6. cancelling a payout releases exactly what it claimed', () => {
  /** 1000 claimed by payout 1 (open); half its sale refunded (a 500 clawback); 2000 approved and run into payout 2 (1500, netting the clawback). */
  async function clawbackNettedElsewhere() {
    const shop = await payingProgram();
    const a = await apiSale(api, shop, 5000);
    await approveAll();
    const p1 = (await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId)).payouts[0]!;
    expect(p1.amountCents).toBe(1000);
    await apiRefund(api, shop, a.transactionId, 2500);
    await apiSale(api, shop, 10_000);
    await approveAll();
    const p2 = (await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId)).payouts[0]!;
    expect(p2.amountCents).toBe(1500);
    return { shop, p1, p2 };
  }

  it('payout 2 paid, payout 1 cancelled: payout 3 pays 1000, and the partner gets exactly the 2500 owed', async () => {
    const { shop, p1, p2 } = await clawbackNettedElsewhere();
    await payoutRuns.markPayoutPaid(deps(), OPERATOR, shop.programId, p2.id, { reference: 'p2' });
    await payoutRuns.cancelPayout(deps(), OPERATOR, shop.programId, p1.id);
    const p3 = (await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId)).payouts[0]!;
    expect(p3.amountCents).toBe(1000);
    await payoutRuns.markPayoutPaid(deps(), OPERATOR, shop.programId, p3.id, { reference: 'p3' });
    // Owed 500 + 2000 = 2500, paid 2500; nothing is left owed and a run says so.
    expect(await paid(shop.programId)).toBe(2500);
    expect(await ledgerOf(shop.programId)).toEqual({ pending: 0, approved: 0, paid: 2500 });
    await expect(payoutRuns.runPayouts(deps(), OPERATOR, shop.programId)).rejects.toMatchObject({ status: 409, init: { code: 'nothing_to_pay' } });
  });

  it('payout 2 still open and then cancelled too: everything comes back once (2500)', async () => {
    const { shop, p1, p2 } = await clawbackNettedElsewhere();
    await payoutRuns.cancelPayout(deps(), OPERATOR, shop.programId, p1.id);
    await payoutRuns.cancelPayout(deps(), OPERATOR, shop.programId, p2.id);
    const p3 = (await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId)).payouts[0]!;
    expect(p3.amountCents).toBe(2500);
  });
});

describe('6b. a cancel racing with refunds of what it claimed', () => {
  it('cancel and five refunds at once: every refund 200, each commission\'s ledger equals its net, and the partner is paid exactly what was earned', async () => {
    const shop = await payingProgram();
    const sales = [];
    for (let i = 0; i < 5; i++) sales.push(await apiSale(api, shop, 5000));
    await approveAll();
    const payout = (await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId)).payouts[0]!;
    expect(payout.amountCents).toBe(5000);
    const [, ...refunds] = await Promise.all([
      payoutRuns.cancelPayout(deps(), OPERATOR, shop.programId, payout.id),
      ...sales.map((sale) => apiRefund(api, shop, sale.transactionId, 1000)),
    ]);
    expect(refunds.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    await expectOwedAsLedger(shop.programId);
    const perCommission = await db.pool.query(
      `SELECT c.amount_cents - c.deducted_cents AS net, coalesce(sum(l.pending_cents + l.approved_cents + l.paid_cents), 0)::bigint AS ledger
         FROM commissions c LEFT JOIN commission_ledger l ON l.commission_id = c.id WHERE c.program_id = $1 GROUP BY c.id`,
      [shop.programId],
    );
    for (const row of perCommission.rows) expect(row.ledger).toBe(row.net);
    // Each refund took 200 of a 1000 commission: 4000 is owed, and a new run pays exactly that.
    const again = (await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId)).payouts[0]!;
    expect(again.amountCents).toBe(4000);
    await payoutRuns.markPayoutPaid(deps(), OPERATOR, shop.programId, again.id, { reference: 'after-cancel' });
    expect(await paid(shop.programId)).toBe(4000);
    expect(await ledgerOf(shop.programId)).toEqual({ pending: 0, approved: 0, paid: 4000 });
  });
});

describe('7. refunds during a payout run wait or succeed, never 503', () => {
  it('60 partners, a run, and 10 refunds for the last partner sent at once: every refund 200, the ledger exact', async () => {
    const shop = await payingProgram();
    const programs = [{ apiKey: shop.apiKey, affiliateUrl: shop.affiliateUrl }];
    for (let i = 1; i < 60; i++) programs.push({ apiKey: shop.apiKey, affiliateUrl: `https://shop.example.com/?aff=${(await addPartnerLink(api, shop.programId)).shortLink}` });
    for (const program of programs.slice(0, -1)) await apiSale(api, program, 1000);
    const last = await apiSale(api, programs.at(-1)!, 10_000);
    await approveAll();
    const refunds = Array.from({ length: 10 }, (_, i) =>
      api.request('POST', '/api/v1/track/refund', { body: { transaction_id: last.transactionId, refund_amount_cents: 100, refund_id: `re_${i}_${last.transactionId}` }, headers: bearer(shop.apiKey) }),
    );
    const [run, ...answers] = await Promise.all([payoutRuns.runPayouts(deps(), OPERATOR, shop.programId), ...refunds]);
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(run.payouts).toHaveLength(60);
    // 10 refunds of 100 on 10000 take 200 of the 2000 commission, before or after the run claimed it.
    const row = (await db.pool.query('SELECT deducted_cents, refunded_total_cents FROM commissions WHERE id = $1', [last.commissionId])).rows[0];
    expect(row).toEqual({ deducted_cents: 200, refunded_total_cents: 1000 });
    await expectOwedAsLedger(shop.programId);
  });
});

describe('8. a commission has one state and amount on every surface', () => {
  it('paid: not pending on the overview, activity, partners, portal, MCP and the inbox; rejected: counted nowhere', async () => {
    const shop = await payingProgram();
    const sold = await apiSale(api, shop, 5000);
    await approveAll();
    const run = await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId);
    await payoutRuns.markPayoutPaid(deps(), OPERATOR, shop.programId, run.payouts[0]!.id, { reference: 'paid-1' });
    const range = { from: new Date(Date.now() - DAY * 1000), to: new Date(Date.now() + DAY * 1000) };
    const surfaces = async () => {
      const kpis = await moneyTotals(db.pool, shop.programId, { ...range, partnerId: null });
      const events = await activity(db.pool, shop.programId, { ...range, partnerId: null, mode: 'all' }, { limit: 50, offset: 0 });
      const stats = await partnerStats(db.pool, shop.programId, range.from);
      const portal = { commissions: await commissionsByState(db.pool, [shop.partnerId]) };
      const explained = await explainSale({ pool: db.pool, store: new PgStore(db.pool), now: () => clock }, shop.programId, sold.transactionId);
      return { kpis, sale: events.find((e: any) => e.kind === 'sale'), stats, portal, explained };
    };
    const afterPaid = await surfaces();
    expect(afterPaid.kpis).toEqual([expect.objectContaining({ commission_cents: '1000', commission_pending_cents: '0', commission_approved_cents: '0', commission_paid_cents: '1000' })]);
    expect(afterPaid.sale).toMatchObject({ commission_state: 'paid', commission_cents: 1000 });
    expect(afterPaid.stats[0].by_currency).toEqual([expect.objectContaining({ commission_cents: '1000' })]);
    expect(afterPaid.portal.commissions).toEqual([{ partnerId: shop.partnerId, currency: 'USD', state: 'paid', count: 1, cents: 1000 }]);
    expect(afterPaid.explained).toMatchObject({ commission_state: 'paid', commission_earned_cents: 1000 });

    // A second sale held for fraud and rejected: it earns nothing on any surface.
    const held = await apiSale(api, shop, 2000);
    await db.pool.query(`UPDATE commissions SET stage = 'held', hold_reasons = '{self_referral}' WHERE id = $1`, [held.commissionId]);
    await commissionLifecycle.rejectCommission(deps(), OPERATOR, shop.programId, held.commissionId!, { reason: 'fraud' });
    const afterRejected = await surfaces();
    expect(afterRejected.kpis).toEqual([expect.objectContaining({ sales: 2, commission_cents: '1000', commission_pending_cents: '0' })]);
    expect(afterRejected.stats[0].by_currency).toEqual([expect.objectContaining({ commission_cents: '1000' })]);
    expect(afterRejected.portal.commissions).toEqual([
      { partnerId: shop.partnerId, currency: 'USD', state: 'paid', count: 1, cents: 1000 },
      { partnerId: shop.partnerId, currency: 'USD', state: 'rejected', count: 1, cents: 0 },
    ]);

    // A fully refunded commission reads reversed, never "in hold 0.00".
    const refunded = await apiSale(api, shop, 3000);
    await apiRefund(api, shop, refunded.transactionId);
    expect(await commissionsByState(db.pool, [shop.partnerId])).toContainEqual({ partnerId: shop.partnerId, currency: 'USD', state: 'reversed', count: 1, cents: 0 });
  });

  it('the inbox answers a Stripe sale\'s commission by the same state', async () => {
    const { shop, vars } = await stripeProgram();
    const [id] = await deliverSteps(api, shop, vars, [{ fixture: 'checkout.session.completed.payment' }]);
    await processEventsInOrder(api, [id!]);
    expect(await getEvent(db.pool, id!)).toMatchObject({ commission_cents: 980, commission_state: 'pending', commission_reason: null });
  });
});

describe('9. one description of what a program pays', () => {
  it('the CLI programs list, the dashboard and the portal say "20% of the first paid sale"', async () => {
    const shop = await seedProgram(api, { commission_type: 'percent', commission_rate: 20 });
    const { rows } = await db.pool.query('SELECT commission_type, commission_rate, recurring_duration_months FROM programs WHERE id = $1', [shop.programId]);
    expect(describeCommission(rows[0].commission_type, rows[0].commission_rate, rows[0].recurring_duration_months)).toBe('20% of the first paid sale');
    expect(describeCommission('recurring_percent', '20', 12)).toBe('20% of every sale for 12 months');
    // The surfaces call it rather than spelling their own (a test per surface lives with it: cli-api, the dashboard and portal browser tests).
    const sources = await Promise.all(
      ['src/http/routes/cli-programs.ts', 'src/http/dashboard/account-pages.ts', 'src/db/partners/portal.ts'].map((file) => import('node:fs/promises').then((fs) => fs.readFile(file, 'utf8'))),
    );
    for (const source of sources) expect(source).toContain('describeCommission(');
  });
});

describe('10. test-mode payments never become payable', () => {
  it('with the test-commissions opt-in, a livemode false payment makes a test commission that is never approved, paid or exported', async () => {
    const { shop, vars } = await stripeProgram();
    await payoutConfig.updatePayoutSettings(deps(), OPERATOR, shop.programId, { hold_days: 0 });
    await api.request('PATCH', `/api/v1/admin/programs/${shop.programId}/stripe`, { body: { livemode_only_commissions: false }, headers: adminHeaders });
    await play(shop, vars, [{ fixture: 'checkout.session.completed.payment', change: (e) => (e.livemode = false) }]);
    const [row] = await salesOf(shop.programId);
    expect(row).toMatchObject({ state: 'test', earned: 980 });
    const commissionId = Number((await db.pool.query('SELECT id FROM commissions WHERE program_id = $1', [shop.programId])).rows[0].id);
    await approveAll();
    await expect(commissionLifecycle.approveCommission(deps(), OPERATOR, shop.programId, commissionId, { reason: 'by hand' })).rejects.toMatchObject({ status: 409, init: { code: 'test_mode' } });
    expect((await salesOf(shop.programId))[0].state).toBe('test');
    await expect(payoutRuns.runPayouts(deps(), OPERATOR, shop.programId)).rejects.toMatchObject({ status: 409, init: { code: 'nothing_to_pay' } });
  });
});

describe('11. a payout run never blocks its program\'s tracking', () => {
  it('while a run holds its locks, clicks, sales and Stripe intake of the program answer 200', async () => {
    const { shop, vars } = await stripeProgram();
    await payoutConfig.updatePayoutSettings(deps(), OPERATOR, shop.programId, { hold_days: 0 });
    await apiSale(api, shop, 5000);
    await approveAll();
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      await lockProgramPayouts(client, shop.programId);
      expect(await lockPayableItems(client, shop.programId)).toHaveLength(1);
      // Under the run's locks: a click, an API sale and a Stripe delivery for the same program.
      const click = await api.request('POST', '/api/v1/track/click', { body: { affiliate_url: shop.affiliateUrl } });
      expect(click.status).toBe(200);
      const sale = await apiSale(api, shop, 1000);
      expect(sale.reply.status).toBe(200);
      const [inboxId] = await deliverSteps(api, shop, vars, [{ fixture: 'checkout.session.completed.payment' }]);
      expect(inboxId).toEqual(expect.any(Number));
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it('three runs racing with approvals and refunds: one batch, no failure but "nothing to pay"', async () => {
    const shop = await payingProgram();
    const sales = [];
    for (let i = 0; i < 20; i++) sales.push(await apiSale(api, shop, 1000 + i));
    clock = new Date(Date.now() + 60_000);
    const outcomes = await Promise.allSettled([
      payoutRuns.runPayouts(deps(), OPERATOR, shop.programId),
      ...sales.slice(0, 10).map((s) => commissionLifecycle.approveCommission(deps(), OPERATOR, shop.programId, s.commissionId!, { reason: 'ok' })),
      payoutRuns.runPayouts(deps(), OPERATOR, shop.programId),
      ...sales.slice(10).map((s) => apiRefund(api, shop, s.transactionId, 500)),
      payoutRuns.runPayouts(deps(), OPERATOR, shop.programId),
    ]);
    const failures = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected').map((o) => o.reason);
    for (const failure of failures) expect(failure).toMatchObject({ status: 409, init: { code: 'nothing_to_pay' } });
    await expectOwedAsLedger(shop.programId);
  });
});

describe('12. paying through Stripe pays once', () => {
  it('the payout is claimed before the transfer: a cancel or a manual mark-paid meanwhile is refused', async () => {
    const shop = await payingProgram();
    await apiSale(api, shop, 5000);
    await approveAll();
    const payout = (await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId)).payouts[0]!;
    await payoutConfig.setPayoutDetails(deps(), OPERATOR, shop.programId, shop.partnerId, { payout_method: 'stripe', payout_reference: 'acct_1Twice' });
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let transfers = 0;
    nock('https://api.stripe.com')
      .post('/v1/transfers')
      .reply(async () => {
        transfers += 1;
        await gate;
        return [200, { id: 'tr_once', object: 'transfer', amount: payout.amountCents, currency: 'usd' }];
      });
    const paying = payoutRuns.payWithStripe({ ...deps(), stripeSecretKey: 'sk_test_affix' }, OPERATOR, shop.programId, payout.id);
    while (transfers === 0) await new Promise((resolve) => setImmediate(resolve));
    await expect(payoutRuns.cancelPayout(deps(), OPERATOR, shop.programId, payout.id)).rejects.toMatchObject({ status: 409, init: { code: 'payout_processing' } });
    await expect(payoutRuns.markPayoutPaid(deps(), OPERATOR, shop.programId, payout.id, { reference: 'by hand' })).rejects.toMatchObject({ status: 409, init: { code: 'payout_processing' } });
    release();
    expect(await paying).toMatchObject({ status: 'paid', reference: 'tr_once' });
    expect(transfers).toBe(1);
    expect(nock.isDone()).toBe(true);
  });
});

describe('13. exports hold one method; minimums are per currency', () => {
  it('the PayPal file holds only PayPal partners; USD 50.00 and VND 1,000,000 minimums apply to their own currency', async () => {
    const shop = await payingProgram();
    const bank = await addPartnerLink(api, shop.programId);
    await payoutConfig.setPayoutDetails(deps(), OPERATOR, shop.programId, shop.partnerId, { payout_method: 'paypal', payout_reference: 'ana@paypal.example' });
    await payoutConfig.setPayoutDetails(deps(), OPERATOR, shop.programId, bank.partnerId, { payout_method: 'bank_transfer', payout_reference: 'DE89370400440532013000' });
    await payoutConfig.updatePayoutSettings(deps(), OPERATOR, shop.programId, { payout_minimums_cents: { USD: 5000, VND: 1_000_000 } });
    await apiSale(api, shop, 30_000); // 6000 USD: over its minimum
    await apiSale(api, shop, 1_250_000, { currency: 'VND' }); // 250000 VND: under VND's minimum
    await apiSale(api, { apiKey: shop.apiKey, affiliateUrl: `https://shop.example.com/?aff=${bank.shortLink}` }, 40_000); // 8000 USD
    await approveAll();
    const run = await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId);
    expect(run.payouts.map((p) => [p.partnerId, p.currency, p.amountCents]).sort()).toEqual([
      [shop.partnerId, 'USD', 6000],
      [bank.partnerId, 'USD', 8000],
    ].sort());
    const paypal = await payoutRuns.exportPayouts(deps(), OPERATOR, shop.programId, run.batchId, 'paypal');
    expect(paypal.trim().split('\r\n').slice(1)).toEqual([expect.stringMatching(/^ana@paypal\.example,60\.00,USD,payout-\d+,/)]);
    expect(paypal).not.toContain('DE89370400440532013000');
    const wise = await payoutRuns.exportPayouts(deps(), OPERATOR, shop.programId, run.batchId, 'wise');
    expect(wise.trim().split('\r\n')).toHaveLength(1);
    await expect(payoutConfig.updatePayoutSettings(deps(), OPERATOR, shop.programId, { payout_minimum_cents: 5000 })).rejects.toMatchObject({
      status: 400,
      init: { fields: { payout_minimum_cents: 'Replaced by payout_minimums_cents: one minimum per currency, like {"USD": 5000, "VND": 1000000}.' } },
    });
  });
});
