// The commission lifecycle, payouts and the ledger on a real database (docs/payouts.md).
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ManagementDeps } from '../src/app/programs/management.js';
import { OPERATOR } from '../src/app/accounts/scope.js';
import * as payoutRuns from '../src/app/money/payout-runs.js';
import * as commissionLifecycle from '../src/app/money/commission-lifecycle.js';
import * as payoutConfig from '../src/app/money/payout-settings.js';
import { type SeededProgram, type TestApi, type TestDatabase, addPartnerLink, adminHeaders, seedProgram, trackClick } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';
import { apiRefund, apiSale } from './support/money.js';
import { type Step as Step2, WEBHOOK_SECRET, deliverSteps, processEventsInOrder } from './support/stripe.js';
import { nockForThisFile } from './support/nock.js';

const nock = nockForThisFile();

let db: TestDatabase;
let api: TestApi;
const DAY = 86_400_000;
let stripeRuns = 0;
let disputes = 0;
let clock = new Date();
const deps = (): ManagementDeps => ({ pool: db.pool, secretBox: null, now: () => clock });

useSeededApi({ env: { AFFIX_SECRET_KEY: 'payouts-test-secret-key-0123' }, options: { queueUrl: 'own' } }, (t) => ({ db, api } = t));

const sale = async (program: { apiKey: string; affiliateUrl: string }, amountCents: number, currency = 'USD') => {
  const made = await apiSale(api, program, amountCents, { currency });
  return { transactionId: made.transactionId, commissionId: made.commissionId! };
};
const refund = (program: { apiKey: string }, transactionId: string, amountCents?: number, reason = 'refund') => apiRefund(api, program, transactionId, amountCents, reason);

const stageOf = async (commissionId: number) => (await db.pool.query('SELECT stage FROM commissions WHERE id = $1', [commissionId])).rows[0].stage;
const balanceOf = async (programId: number, partnerId: number, currency = 'USD') =>
  (await payoutRuns.balances(deps(), OPERATOR, programId)).find((b) => b.partnerId === partnerId && b.currency === currency);

describe('commission lifecycle', () => {
  let shop: SeededProgram;
  beforeAll(async () => {
    shop = await seedProgram(api, { commission_rate: 10 });
  });

  it('stays pending through the hold period, then the schedule approves it (and tells the brand)', async () => {
    clock = new Date();
    const { commissionId } = await sale(shop, 10_000);
    await commissionLifecycle.approveDueCommissions(deps());
    expect(await stageOf(commissionId)).toBe('pending');
    clock = new Date(Date.now() + 31 * DAY);
    expect(await commissionLifecycle.approveDueCommissions(deps())).toBeGreaterThanOrEqual(1);
    expect(await stageOf(commissionId)).toBe('approved');
    const entries = await db.pool.query('SELECT kind, pending_cents, approved_cents FROM commission_ledger WHERE commission_id = $1 ORDER BY id', [commissionId]);
    expect(entries.rows).toEqual([
      { kind: 'created', pending_cents: 1000, approved_cents: 0 },
      { kind: 'approved', pending_cents: -1000, approved_cents: 1000 },
    ]);
  });

  it('the hold period is the program setting', async () => {
    const quick = await seedProgram(api, { commission_rate: 10 });
    await payoutConfig.updatePayoutSettings(deps(), OPERATOR, quick.programId, { hold_days: 2, payout_minimums_cents: {} });
    const { commissionId } = await sale(quick, 5_000);
    clock = new Date(Date.now() + 1 * DAY);
    await commissionLifecycle.approveDueCommissions(deps());
    expect(await stageOf(commissionId)).toBe('pending');
    clock = new Date(Date.now() + 2 * DAY + 60_000);
    await commissionLifecycle.approveDueCommissions(deps());
    expect(await stageOf(commissionId)).toBe('approved');
  });

  it('a manager approves early (a reason optional, kept when given) and takes it back with a reason; taken back, the schedule leaves it alone', async () => {
    clock = new Date();
    const { commissionId } = await sale(shop, 20_000);
    await commissionLifecycle.approveCommission(deps(), OPERATOR, shop.programId, commissionId, { reason: 'verified with the customer' });
    expect(await stageOf(commissionId)).toBe('approved');
    await expect(commissionLifecycle.unapproveCommission(deps(), OPERATOR, shop.programId, commissionId, {})).rejects.toMatchObject({ status: 400 });
    await commissionLifecycle.unapproveCommission(deps(), OPERATOR, shop.programId, commissionId, { reason: 'customer disputes by email' });
    expect(await stageOf(commissionId)).toBe('pending');
    clock = new Date(Date.now() + 60 * DAY);
    await commissionLifecycle.approveDueCommissions(deps());
    expect(await stageOf(commissionId)).toBe('pending');
    const reasons = await db.pool.query('SELECT kind, reason FROM commission_ledger WHERE commission_id = $1 AND reason IS NOT NULL ORDER BY id', [commissionId]);
    expect(reasons.rows).toEqual([
      { kind: 'approved', reason: 'verified with the customer' },
      { kind: 'unapproved', reason: 'customer disputes by email' },
    ]);
  });

  it('a reversed commission is never approved', async () => {
    clock = new Date();
    const { transactionId, commissionId } = await sale(shop, 3_000);
    await refund(shop, transactionId);
    await expect(commissionLifecycle.approveCommission(deps(), OPERATOR, shop.programId, commissionId, { reason: 'x' })).rejects.toMatchObject({ status: 409 });
    clock = new Date(Date.now() + 60 * DAY);
    await commissionLifecycle.approveDueCommissions(deps());
    expect(await stageOf(commissionId)).toBe('pending');
  });

  it('another brand cannot approve this program’s commission (the same 404 as none)', async () => {
    const { commissionId } = await sale(shop, 1_000);
    const other = await seedProgram(api);
    await expect(
      commissionLifecycle.approveCommission(deps(), { kind: 'account', accountId: other.accountId, role: 'owner' }, shop.programId, commissionId, { reason: 'x' }),
    ).rejects.toMatchObject({ status: 404, message: 'Program not found' });
    await expect(commissionLifecycle.approveCommission(deps(), OPERATOR, other.programId, commissionId, { reason: 'x' })).rejects.toMatchObject({
      status: 404,
      message: 'Commission not found',
    });
  });
});

describe('payouts', () => {
  it('pays each partner per currency above the minimum, marks paid with a reference, and carries a later refund as a clawback', async () => {
    const shop = await seedProgram(api, { commission_rate: 10 });
    const second = await addPartnerLink(api, shop.programId);
    const secondProgram = { ...shop, affiliateUrl: `https://shop.example.com/?aff=${second.shortLink}` };
    await payoutConfig.updatePayoutSettings(deps(), OPERATOR, shop.programId, { hold_days: 0, payout_minimums_cents: { USD: 1_000, EUR: 1_000 } });
    clock = new Date(Date.now() + 60_000);
    const a1 = await sale(shop, 50_000); // 5000
    const a2 = await sale(shop, 30_000, 'EUR'); // 3000 EUR
    await sale(secondProgram, 5_000); // 500: below the minimum
    await commissionLifecycle.approveDueCommissions(deps());

    const run = await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId);
    expect(run.payouts.map((p) => [p.partnerId, p.currency, p.amountCents]).sort()).toEqual([
      [shop.partnerId, 'EUR', 3000],
      [shop.partnerId, 'USD', 5000],
    ]);
    await expect(payoutRuns.runPayouts(deps(), OPERATOR, shop.programId)).rejects.toMatchObject({ status: 409 });

    const usd = run.payouts.find((p) => p.currency === 'USD')!;
    const csv = await payoutRuns.exportPayouts(deps(), OPERATOR, shop.programId, run.batchId, 'generic');
    expect(csv.split('\r\n')[0]).toBe('payout_id,batch_id,partner_id,partner_name,payout_method,pay_to,currency,amount,amount_cents,status,reference');
    expect(csv).toContain(`,USD,50.00,5000,pending,`);
    await payoutConfig.setPayoutDetails(deps(), OPERATOR, shop.programId, shop.partnerId, { payout_method: 'paypal', payout_reference: 'ana.paypal@example.com' });
    const paypal = await payoutRuns.exportPayouts(deps(), OPERATOR, shop.programId, run.batchId, 'paypal');
    expect(paypal.split('\r\n')[0]).toBe('Email/Phone,Amount,Currency code,Reference ID,Note to recipient,Recipient wallet');
    expect(paypal).toContain(`ana.paypal@example.com,30.00,EUR,payout-`);

    await expect(payoutRuns.markPayoutPaid(deps(), OPERATOR, shop.programId, usd.id, {})).rejects.toMatchObject({ status: 400 });
    await payoutRuns.markPayoutPaid(deps(), OPERATOR, shop.programId, usd.id, { reference: 'PAYPAL-BATCH-1' });
    await expect(payoutRuns.markPayoutPaid(deps(), OPERATOR, shop.programId, usd.id, { reference: 'again' })).rejects.toMatchObject({ status: 409 });
    expect(await stageOf(a1.commissionId)).toBe('paid');
    expect(await balanceOf(shop.programId, shop.partnerId)).toMatchObject({ approvedCents: 0, paidCents: 5000 });

    // Refunded after it was paid: the paid record stays, the partner owes 2500 back.
    await refund(shop, a1.transactionId, 25_000);
    const paid = await db.pool.query('SELECT stage, payout_cents FROM commissions WHERE id = $1', [a1.commissionId]);
    expect(paid.rows[0]).toEqual({ stage: 'paid', payout_cents: 5000 });
    expect(await balanceOf(shop.programId, shop.partnerId)).toMatchObject({ approvedCents: -2500, paidCents: 5000 });

    // The next payout nets it: 4000 approved - 2500 clawed back = 1500.
    await sale(shop, 40_000);
    await commissionLifecycle.approveDueCommissions(deps());
    const next = await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId);
    expect(next.payouts.map((p) => [p.currency, p.amountCents])).toEqual([['USD', 1500]]);
    await payoutRuns.markPayoutPaid(deps(), OPERATOR, shop.programId, next.payouts[0]!.id, { reference: 'PAYPAL-BATCH-2' });
    expect(await balanceOf(shop.programId, shop.partnerId)).toMatchObject({ approvedCents: 0, paidCents: 6500 });

    // The EUR payout is canceled: its balance is payable again.
    const eur = run.payouts.find((p) => p.currency === 'EUR')!;
    await payoutRuns.cancelPayout(deps(), OPERATOR, shop.programId, eur.id);
    expect(await stageOf(a2.commissionId)).toBe('approved');
    const again = await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId);
    expect(again.payouts.map((p) => [p.currency, p.amountCents])).toEqual([['EUR', 3000]]);
  });

  it('a payout run by two managers at once makes one batch', async () => {
    const shop = await seedProgram(api, { commission_rate: 10 });
    await payoutConfig.updatePayoutSettings(deps(), OPERATOR, shop.programId, { hold_days: 0, payout_minimums_cents: {} });
    await sale(shop, 10_000);
    clock = new Date(Date.now() + 60_000);
    await commissionLifecycle.approveDueCommissions(deps());
    const results = await Promise.allSettled([payoutRuns.runPayouts(deps(), OPERATOR, shop.programId), payoutRuns.runPayouts(deps(), OPERATOR, shop.programId)]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const total = await db.pool.query('SELECT count(*)::int AS n, sum(amount_cents)::int AS cents FROM payouts WHERE program_id = $1', [shop.programId]);
    expect(total.rows[0]).toEqual({ n: 1, cents: 1000 });
  });

  it('pays through a Stripe transfer to the partner’s connected account (idempotent per payout), then marks it paid', async () => {
    const shop = await seedProgram(api, { commission_rate: 10 });
    await payoutConfig.updatePayoutSettings(deps(), OPERATOR, shop.programId, { hold_days: 0, payout_minimums_cents: {} });
    await sale(shop, 25_000, 'EUR');
    clock = new Date(Date.now() + 60_000);
    await commissionLifecycle.approveDueCommissions(deps());
    const run = await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId);
    const payout = run.payouts[0]!;
    const stripeDeps = { ...deps(), stripeSecretKey: 'sk_test_affix' };
    await expect(payoutRuns.payWithStripe(stripeDeps, OPERATOR, shop.programId, payout.id)).rejects.toMatchObject({ status: 409, init: { code: 'not_stripe' } });
    await payoutConfig.setPayoutDetails(deps(), OPERATOR, shop.programId, shop.partnerId, { payout_method: 'stripe', payout_reference: 'acct_1PartnerX' });

    // Stripe refuses once: nothing is marked paid.
    nock('https://api.stripe.com').post('/v1/transfers').reply(400, { error: { type: 'invalid_request_error', message: 'Insufficient funds in your Stripe balance' } });
    await expect(payoutRuns.payWithStripe(stripeDeps, OPERATOR, shop.programId, payout.id)).rejects.toMatchObject({ status: 502, message: 'Stripe refused the transfer: Insufficient funds in your Stripe balance' });
    expect((await payoutRuns.listPayouts(deps(), OPERATOR, shop.programId))[0]!.status).toBe('pending');

    let sent: { body: string; key: string | undefined } | null = null;
    nock('https://api.stripe.com')
      .post('/v1/transfers')
      .reply(function (_uri, body) {
        sent = { body: String(body), key: this.req.headers['idempotency-key'] as string | undefined };
        return [200, { id: 'tr_affix_1', object: 'transfer', amount: payout.amountCents, currency: 'eur' }];
      });
    const paid = await payoutRuns.payWithStripe(stripeDeps, OPERATOR, shop.programId, payout.id);
    expect(paid).toMatchObject({ status: 'paid', reference: 'tr_affix_1' });
    expect(sent!.key).toBe(`affix-payout-${payout.id}`);
    expect(new URLSearchParams(sent!.body).get('amount')).toBe('2500');
    expect(new URLSearchParams(sent!.body).get('currency')).toBe('eur');
    expect(new URLSearchParams(sent!.body).get('destination')).toBe('acct_1PartnerX');
    await expect(payoutRuns.payWithStripe(stripeDeps, OPERATOR, shop.programId, payout.id)).rejects.toMatchObject({ status: 409 });
    expect(nock.isDone()).toBe(true);
  });

  it('partners’ payout details are checked per method', async () => {
    const shop = await seedProgram(api);
    await expect(payoutConfig.setPayoutDetails(deps(), OPERATOR, shop.programId, shop.partnerId, { payout_method: 'paypal', payout_reference: 'not-an-email' })).rejects.toMatchObject({
      status: 400,
      init: { fields: { payout_reference: 'PayPal and Wise pay to an email address.' } },
    });
    await payoutConfig.setPayoutDetails(deps(), OPERATOR, shop.programId, shop.partnerId, { payout_method: 'paypal', payout_reference: 'ana@example.com', payout_currency: 'USD' });
    const other = await seedProgram(api);
    await expect(payoutConfig.setPayoutDetails(deps(), OPERATOR, other.programId, shop.partnerId, { payout_method: null })).rejects.toMatchObject({ status: 404 });
  });
});

/**
 * The ledger property: for any sequence of sales (first sales out of order, renewals sent as
 * recurring, $0 attempts, Stripe payments), refunds, disputes (inquiries, partial, lost, won),
 * approvals (scheduled and by hand), payout runs (some racing with refunds), payments and
 * cancellations, the ledger's sums equal the records, each customer's one commission sits on its
 * first paid sale, and once everything owed is paid each partner received exactly what they earned.
 */
describe('ledger', () => {
  type Step =
    | { kind: 'sale'; partner: 0 | 1; cents: number; eur: boolean; repeatCustomer: number | null; daysAgo: number; recurring: boolean }
    | { kind: 'zero_sale'; partner: 0 | 1 }
    | { kind: 'stripe_sale'; partner: 0 | 1; cents: number }
    | { kind: 'refund'; pick: number; cents: number | null; chargeback: boolean }
    | { kind: 'dispute'; pick: number; inquiry: boolean; percent: number; outcome: 'open' | 'lost' | 'won' }
    | { kind: 'approve_due' }
    | { kind: 'approve'; pick: number }
    | { kind: 'unapprove'; pick: number }
    | { kind: 'run' }
    | { kind: 'run_racing_refunds'; picks: number[] }
    | { kind: 'pay'; pick: number }
    | { kind: 'cancel'; pick: number };

  const partner = fc.constantFrom(0 as const, 1 as const);
  const step: fc.Arbitrary<Step> = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant('sale' as const), partner, cents: fc.integer({ min: 1, max: 100_000 }), eur: fc.boolean(),
        repeatCustomer: fc.option(fc.nat(), { nil: null, freq: 2 }), daysAgo: fc.integer({ min: 0, max: 5 }), recurring: fc.boolean(),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('zero_sale' as const), partner }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('stripe_sale' as const), partner, cents: fc.integer({ min: 100, max: 100_000 }) }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('refund' as const), pick: fc.nat(), cents: fc.option(fc.integer({ min: 1, max: 60_000 }), { nil: null }), chargeback: fc.boolean() }) },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('dispute' as const), pick: fc.nat(), inquiry: fc.boolean(), percent: fc.integer({ min: 1, max: 100 }), outcome: fc.constantFrom('open' as const, 'lost' as const, 'won' as const),
      }),
    },
    { weight: 2, arbitrary: fc.constant({ kind: 'approve_due' as const }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('approve' as const), pick: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('unapprove' as const), pick: fc.nat() }) },
    { weight: 2, arbitrary: fc.constant({ kind: 'run' as const }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('run_racing_refunds' as const), picks: fc.array(fc.nat(), { minLength: 1, maxLength: 4 }) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('pay' as const), pick: fc.nat() }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }) },
  );

  const ignoreRefusal = (error: unknown) => {
    if (![404, 409].includes((error as { status?: number }).status ?? 0)) throw error;
  };

  interface Made {
    transactionId: string;
    commissionId: number | null;
    customer: { key: string; clickId: string; partner: 0 | 1; currency: string };
    /** Stripe payments: the fixture run, for disputes on its charge. */
    stripeRun?: string;
    cents: number;
  }

  async function play(steps: Step[]) {
    const shop = await seedProgram(api, { commission_rate: 15 });
    await api.request('PATCH', `/api/v1/admin/programs/${shop.programId}/stripe`, { body: { webhook_secret: WEBHOOK_SECRET }, headers: adminHeaders });
    const second = await addPartnerLink(api, shop.programId);
    const urls = [shop.affiliateUrl, `https://shop.example.com/?aff=${second.shortLink}`];
    await payoutConfig.updatePayoutSettings(deps(), OPERATOR, shop.programId, { hold_days: 0, payout_minimums_cents: {} });
    const sales: Made[] = [];
    const apiCustomers: Made['customer'][] = [];
    const openPayouts = async () => (await payoutRuns.listPayouts(deps(), OPERATOR, shop.programId)).filter((p) => p.status === 'pending');
    const refundOf = (picked: Made, cents: number | null, reason: string) => apiRefund(api, shop, picked.transactionId, cents ?? undefined, reason);
    const stripeEvents = async (steps: Step2[], vars: Record<string, string | number>) => processEventsInOrder(api, await deliverSteps(api, shop, vars, steps));
    clock = new Date(Date.now() + 60_000);
    for (const s of steps) {
      const picked = sales.length ? sales['pick' in s ? s.pick % sales.length : 0] : undefined;
      if (s.kind === 'sale') {
        const again = s.repeatCustomer !== null && apiCustomers.length ? apiCustomers[s.repeatCustomer % apiCustomers.length] : undefined;
        const program = { apiKey: shop.apiKey, affiliateUrl: urls[again?.partner ?? s.partner]! };
        const currency = again?.currency ?? (s.eur ? 'EUR' : 'USD');
        const made = await apiSale(api, program, s.cents, {
          currency, customerKey: again?.key, clickId: again?.clickId, isRecurring: s.recurring, occurredAt: new Date(Date.now() - s.daysAgo * DAY),
        });
        const customer = again ?? { key: made.reply.body.customer_key ?? '', clickId: made.clickId, partner: s.partner, currency };
        if (!again) {
          customer.key = (await db.pool.query('SELECT customer_key FROM customers WHERE click_id = $1', [made.clickId])).rows[0].customer_key;
          apiCustomers.push(customer);
        }
        sales.push({ transactionId: made.transactionId, commissionId: made.commissionId, customer, cents: s.cents });
      } else if (s.kind === 'zero_sale') {
        // A $0 invoice is no sale: refused, nothing written.
        await expect(apiSale(api, { apiKey: shop.apiKey, affiliateUrl: urls[s.partner]! }, 0)).rejects.toThrow();
      } else if (s.kind === 'stripe_sale') {
        const run = `pp${++stripeRuns}_${Date.now()}`;
        const clickId = await trackClick(api, urls[s.partner]!);
        await stripeEvents([{ fixture: 'checkout.session.completed.payment', change: (e) => (e.data.object.amount_total = s.cents) }], { run, click_id: clickId, customer_key: `k_${run}`, program_id: shop.programId, email: `${run}@example.com` });
        const { rows } = await db.pool.query('SELECT c.id FROM sales s LEFT JOIN commissions c ON c.sale_id = s.id WHERE s.processor_event_id = $1', [`cs_${run}_payment`]);
        sales.push({ transactionId: `cs_${run}_payment`, commissionId: rows[0]?.id ?? null, customer: { key: `k_${run}`, clickId, partner: s.partner, currency: 'USD' }, stripeRun: run, cents: s.cents });
      } else if (s.kind === 'refund' && picked) await refundOf(picked, s.cents, s.chargeback ? 'chargeback' : 'refund');
      else if (s.kind === 'dispute' && picked?.stripeRun) {
        const dispute = `dp_${picked.stripeRun}_${++disputes}`;
        const amount = Math.max(1, Math.round((picked.cents * s.percent) / 100));
        const shape = (status: string, type: string) => (e: any) => {
          Object.assign(e.data.object, { id: dispute, status, amount });
          Object.assign(e, { id: `evt_${dispute}_${status}`, type });
        };
        const events: Step2[] = [{ fixture: 'charge.dispute.created', change: shape(s.inquiry ? 'warning_needs_response' : 'needs_response', 'charge.dispute.created') }];
        if (s.outcome !== 'open') {
          const closed = s.inquiry ? 'warning_closed' : s.outcome;
          events.push({ fixture: 'charge.dispute.created', at: 10, change: shape(closed, 'charge.dispute.closed') });
        }
        await stripeEvents(events, { run: picked.stripeRun, click_id: picked.customer.clickId, customer_key: picked.customer.key, program_id: shop.programId, email: 'x@example.com' });
      } else if (s.kind === 'approve_due') await commissionLifecycle.approveDueCommissions(deps());
      else if (s.kind === 'approve' && picked?.commissionId) await commissionLifecycle.approveCommission(deps(), OPERATOR, shop.programId, picked.commissionId, { reason: 'by hand' }).catch(ignoreRefusal);
      else if (s.kind === 'unapprove' && picked?.commissionId) await commissionLifecycle.unapproveCommission(deps(), OPERATOR, shop.programId, picked.commissionId, { reason: 'by hand' }).catch(ignoreRefusal);
      else if (s.kind === 'run') await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId).catch(ignoreRefusal);
      else if (s.kind === 'run_racing_refunds' && sales.length) {
        // Refunds sent while the run works never fail: they wait for it or go first.
        await Promise.all([
          payoutRuns.runPayouts(deps(), OPERATOR, shop.programId).catch(ignoreRefusal),
          ...s.picks.map((pick) => refundOf(sales[pick % sales.length]!, 50, 'refund')),
        ]);
      } else if (s.kind === 'pay' || s.kind === 'cancel') {
        const open = await openPayouts();
        const payout = open[s.pick % Math.max(open.length, 1)];
        if (!payout) continue;
        if (s.kind === 'pay') await payoutRuns.markPayoutPaid(deps(), OPERATOR, shop.programId, payout.id, { reference: 'ref' });
        else await payoutRuns.cancelPayout(deps(), OPERATOR, shop.programId, payout.id);
      }
    }
    return shop.programId;
  }

  /** Each customer's one commission sits on its earliest paid sale (by occurred_at, then transaction id), at 15 % of it. */
  async function checkFirstSaleRule(programId: number) {
    const { rows } = await db.pool.query(
      `SELECT s.customer_id, s.processor_event_id, s.amount_cents, c.amount_cents AS commission, c.moved_to_sale_id,
              row_number() OVER (PARTITION BY s.customer_id ORDER BY s.occurred_at, s.processor_event_id) AS position
         FROM sales s LEFT JOIN commissions c ON c.sale_id = s.id WHERE s.program_id = $1 AND NOT s.test`,
      [programId],
    );
    for (const row of rows) {
      const active = row.commission !== null && row.moved_to_sale_id === null;
      expect(active, `sale ${row.processor_event_id} (position ${row.position}) holds the first-sale commission`).toBe(Number(row.position) === 1);
      if (active) expect(row.commission).toBe(Math.round((row.amount_cents * 15) / 100 + 1e-9));
    }
  }

  /** Approves and pays everything owed; each partner then received what their commissions earned (less what they still owe back). */
  async function checkPaidAsEarned(programId: number) {
    const held = await db.pool.query(`SELECT id FROM commissions WHERE program_id = $1 AND stage = 'held'`, [programId]);
    for (const row of held.rows) await commissionLifecycle.releaseCommission(deps(), OPERATOR, programId, Number(row.id), { reason: 'settle' });
    const pending = await db.pool.query(`SELECT id FROM commission_states WHERE program_id = $1 AND state = 'pending'`, [programId]);
    for (const row of pending.rows) await commissionLifecycle.approveCommission(deps(), OPERATOR, programId, Number(row.id), { reason: 'settle' }).catch(ignoreRefusal);
    await payoutRuns.runPayouts(deps(), OPERATOR, programId).catch(ignoreRefusal);
    for (const payout of await payoutRuns.listPayouts(deps(), OPERATOR, programId)) {
      if (payout.status === 'pending') await payoutRuns.markPayoutPaid(deps(), OPERATOR, programId, payout.id, { reference: 'settle' });
    }
    const { rows } = await db.pool.query(
      `WITH earned AS (SELECT partner_id, currency, sum(earned_cents)::bigint AS cents FROM commission_states WHERE program_id = $1 GROUP BY 1, 2),
            paid AS (SELECT partner_id, currency, sum(amount_cents)::bigint AS cents FROM payouts WHERE program_id = $1 AND status = 'paid' GROUP BY 1, 2),
            outstanding AS (
              SELECT partner_id, currency, sum(cents)::bigint AS cents FROM (
                SELECT partner_id, currency, amount_cents - deducted_cents AS cents FROM commissions WHERE program_id = $1 AND stage = 'approved' AND payout_id IS NULL
                UNION ALL SELECT partner_id, currency, amount_cents FROM clawbacks WHERE program_id = $1 AND payout_id IS NULL) x GROUP BY 1, 2)
       SELECT e.partner_id, e.currency, e.cents AS earned, coalesce(p.cents, 0)::bigint AS paid, coalesce(o.cents, 0)::bigint AS outstanding
         FROM earned e LEFT JOIN paid p USING (partner_id, currency) LEFT JOIN outstanding o USING (partner_id, currency)`,
      [programId],
    );
    for (const row of rows) expect(row.paid + row.outstanding, `partner ${row.partner_id} ${row.currency}: paid + still owed = earned`).toBe(row.earned);
  }

  async function checkLedger(programId: number) {
    // 1. Each commission: its entries sum to what it is worth now.
    const perCommission = await db.pool.query(
      `SELECT c.id, (c.amount_cents - c.deducted_cents)::bigint AS net, coalesce(sum(l.pending_cents + l.approved_cents + l.paid_cents), 0)::bigint AS ledger,
              c.stage, coalesce(sum(l.pending_cents), 0)::bigint AS pending
         FROM commissions c LEFT JOIN commission_ledger l ON l.commission_id = c.id
        WHERE c.program_id = $1 GROUP BY c.id`,
      [programId],
    );
    for (const row of perCommission.rows) {
      expect(row.ledger, `commission ${row.id}`).toBe(row.net);
      expect(row.pending, `commission ${row.id} pending bucket`).toBe(row.stage === 'pending' ? row.net : 0);
    }
    // 2. Per partner and currency: paid = payouts marked paid; approved = what the next run and the open payouts pay.
    const perPartner = await db.pool.query(
      `WITH ledger AS (SELECT partner_id, currency, sum(approved_cents)::bigint AS approved, sum(paid_cents)::bigint AS paid FROM commission_ledger WHERE program_id = $1 GROUP BY 1, 2),
            paid AS (SELECT partner_id, currency, sum(amount_cents)::bigint AS paid FROM payouts WHERE program_id = $1 AND status = 'paid' GROUP BY 1, 2),
            open AS (SELECT partner_id, currency, sum(amount_cents)::bigint AS open FROM payouts WHERE program_id = $1 AND status = 'pending' GROUP BY 1, 2),
            unclaimed AS (
              SELECT partner_id, currency, sum(cents)::bigint AS cents FROM (
                SELECT partner_id, currency, amount_cents - deducted_cents AS cents FROM commissions WHERE program_id = $1 AND stage = 'approved' AND payout_id IS NULL
                UNION ALL SELECT partner_id, currency, amount_cents FROM clawbacks WHERE program_id = $1 AND payout_id IS NULL) x GROUP BY 1, 2)
       SELECT l.partner_id, l.currency, l.approved, l.paid, coalesce(p.paid, 0)::bigint AS payouts_paid,
              (coalesce(o.open, 0) + coalesce(u.cents, 0))::bigint AS owed
         FROM ledger l LEFT JOIN paid p USING (partner_id, currency) LEFT JOIN open o USING (partner_id, currency) LEFT JOIN unclaimed u USING (partner_id, currency)`,
      [programId],
    );
    for (const row of perPartner.rows) {
      expect(row.paid, `partner ${row.partner_id} ${row.currency} paid`).toBe(row.payouts_paid);
      expect(row.approved, `partner ${row.partner_id} ${row.currency} owed`).toBe(row.owed);
    }
  }

  it('sums equal the commission records to the cent, for any sequence', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 18 }), async (steps) => {
        const programId = await play(steps);
        await checkLedger(programId);
        await checkFirstSaleRule(programId);
        await checkPaidAsEarned(programId);
        await checkLedger(programId);
      }),
      { numRuns: 30 },
    );
  }, 240_000);

  it('refuses to edit or delete a ledger entry', async () => {
    await expect(db.pool.query('UPDATE commission_ledger SET pending_cents = 0')).rejects.toThrow(/append-only/);
    await expect(db.pool.query('DELETE FROM commission_ledger')).rejects.toThrow(/append-only/);
  });
});
