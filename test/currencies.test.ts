// Every currency a processor sells in (docs/architecture.md, "Currencies"; docs/currencies.md): the contract's
// USD, EUR and VND by default (others 422), every ISO 4217 currency when the program opts in,
// each in its own minor unit from sale to refund, payout, export, statement and KPI cards.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ManagementDeps } from '../src/app/programs/management.js';
import { OPERATOR } from '../src/app/accounts/scope.js';
import * as payoutConfig from '../src/app/money/payout-settings.js';
import * as commissionLifecycle from '../src/app/money/commission-lifecycle.js';
import * as payoutRuns from '../src/app/money/payout-runs.js';
import { payoutCsv } from '../src/core/payout-export.js';
import { programStatementCsv } from '../src/app/money/payout-statements.js';
import { trackSale } from '../src/core/track-sale.js';
import { PgStore } from '../src/db/tracking/store.js';
import { moneyTotals } from '../src/db/reads/page-rollups.js';
import { kpiCards } from '../src/http/dashboard/kpi-cards.js';
import { type SeededProgram, type TestApi, type TestDatabase, adminHeaders, bearer, createTestDatabase, seedProgram, startTestApi, trackClick } from './support/harness.js';
import { apiRefund, apiSale, uid } from './support/money.js';
import { deliverSteps, processEventsInOrder, seedStripeCustomer } from './support/stripe.js';
import { nockForThisFile } from './support/nock.js';

const nock = nockForThisFile();

let db: TestDatabase;
let api: TestApi;
let clock = new Date();
const deps = (): ManagementDeps => ({ pool: db.pool, secretBox: null, now: () => clock });
const DAY = 86_400_000;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startTestApi(db.pool, { AFFIX_SECRET_KEY: 'currencies-test-key-0123456789' }, { queueUrl: db.url });
});
afterAll(async () => {
  await api.close();
  await db.drop();
});

const acceptAll = async (programId: number, on: boolean) => {
  const reply = await api.request('PATCH', `/api/v1/admin/programs/${programId}`, { body: { accept_all_currencies: on }, headers: adminHeaders });
  expect(reply.status).toBe(200);
  expect(reply.body.data.accept_all_currencies).toBe(on);
};

const rawSale = async (program: SeededProgram, amountCents: number, currency: string) =>
  api.request('POST', '/api/v1/track/sale', {
    body: { transaction_id: uid('txn'), amount_cents: amountCents, currency, click_id: await trackClick(api, program.affiliateUrl), customer_key: uid('c') },
    headers: bearer(program.apiKey),
  });

describe('the tracking API', () => {
  it('keeps the contract by default: GBP is refused with 422 unsupported_currency, nothing created', async () => {
    const shop = await seedProgram(api);
    const reply = await rawSale(shop, 4999, 'GBP');
    expect(reply.status).toBe(422);
    expect(reply.body.error).toMatchObject({ message: 'currency GBP is not supported', code: 'unsupported_currency' });
    expect((await db.pool.query('SELECT count(*)::int AS n FROM sales WHERE program_id = $1', [shop.programId])).rows[0].n).toBe(0);
  });

  it('with every currency accepted, a code outside ISO 4217 is still refused in the same words', async () => {
    const shop = await seedProgram(api);
    await acceptAll(shop.programId, true);
    const reply = await rawSale(shop, 100, 'XYZ');
    expect(reply.status).toBe(422);
    expect(reply.body.error).toMatchObject({ message: 'currency XYZ is not supported', code: 'unsupported_currency' });
    // Back off: the contract again.
    await acceptAll(shop.programId, false);
    expect((await rawSale(shop, 100, 'JPY')).body.error).toMatchObject({ message: 'currency JPY is not supported' });
  });
});

describe('GBP, JPY and KWD end to end: sale, refund, payout, export, statement, KPI', () => {
  it('each amount in its own minor unit, never summed across currencies', async () => {
    clock = new Date();
    // A fixed reward of 10: £10.00, ¥10, 10.000 KWD.
    const shop = await seedProgram(api, { commission_type: 'fixed', commission_rate: 10 });
    await acceptAll(shop.programId, true);
    // Minimums per currency, in its own unit: £5.00, ¥5, 9.000 KWD (over what will be owed in KWD).
    await payoutConfig.updatePayoutSettings(deps(), OPERATOR, shop.programId, { hold_days: 0, payout_minimums_cents: { GBP: 500, jpy: 5, KWD: 9000 } });
    const gbp = await apiSale(api, shop, 4999, { currency: 'GBP' });
    const jpy = await apiSale(api, shop, 5000, { currency: 'jpy' });
    const kwd = await apiSale(api, shop, 12345, { currency: 'KWD' });
    expect([gbp, jpy, kwd].map((s) => s.reply.body.commission_amount_cents)).toEqual([1000, 10, 10000]);

    // A refund each: the deduction is the refunded share of the commission, in the same unit.
    await apiRefund(api, shop, gbp.transactionId, 999); // 1000 x 999/4999 = 199.84 -> 200
    await apiRefund(api, shop, jpy.transactionId, 1000); // 10 x 1000/5000 = 2
    await apiRefund(api, shop, kwd.transactionId, 2345); // 10000 x 2345/12345 = 1899.55 -> 1900
    const { rows: sold } = await db.pool.query(
      `SELECT s.currency, s.amount_cents::int AS sale, c.amount_cents::int AS commission, c.deducted_cents::int AS deducted
         FROM sales s JOIN commissions c ON c.sale_id = s.id WHERE s.program_id = $1 ORDER BY s.currency`,
      [shop.programId],
    );
    expect(sold).toEqual([
      { currency: 'GBP', sale: 4999, commission: 1000, deducted: 200 },
      { currency: 'JPY', sale: 5000, commission: 10, deducted: 2 },
      { currency: 'KWD', sale: 12345, commission: 10000, deducted: 1900 },
    ]);

    expect((await payoutConfig.payoutSettings(deps(), OPERATOR, shop.programId)).payoutMinimumsCents).toEqual({ GBP: 500, JPY: 5, KWD: 9000 });
    await expect(payoutConfig.updatePayoutSettings(deps(), OPERATOR, shop.programId, { payout_minimums_cents: { ABC: 1 } })).rejects.toMatchObject({ status: 400 });
    await payoutConfig.setPayoutDetails(deps(), OPERATOR, shop.programId, shop.partnerId, { payout_method: 'paypal', payout_reference: 'ana@paypal.example', payout_currency: 'gbp' });
    clock = new Date(Date.now() + 60_000);
    await commissionLifecycle.approveDueCommissions(deps());
    const run = await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId);
    expect(run.payouts.map((p) => [p.currency, p.amountCents]).sort()).toEqual([['GBP', 800], ['JPY', 8]]);

    const paypal = await payoutRuns.exportPayouts(deps(), OPERATOR, shop.programId, run.batchId, 'paypal');
    expect(paypal.trim().split('\r\n').slice(1).map((line) => line.split(',').slice(1, 3).join(',')).sort()).toEqual(['8,JPY', '8.00,GBP']);

    // KWD under its minimum waits; lowered, it is paid next run as 8.100 dinars.
    await payoutConfig.updatePayoutSettings(deps(), OPERATOR, shop.programId, { payout_minimums_cents: { KWD: 5000 } });
    const next = await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId);
    expect(next.payouts.map((p) => [p.currency, p.amountCents])).toEqual([['KWD', 8100]]);
    const generic = await payoutRuns.exportPayouts(deps(), OPERATOR, shop.programId, next.batchId, 'generic');
    expect(generic).toContain(',KWD,8.100,');

    // The statements: sale and commission amounts in each currency's digits.
    const statements: Record<string, string> = {};
    for (const payout of [...run.payouts, ...next.payouts]) statements[payout.currency] = await programStatementCsv(deps(), OPERATOR, shop.programId, payout.id);
    expect(statements.GBP).toMatch(/,49\.99,8\.00,commission\r\n/);
    expect(statements.JPY).toMatch(/,5000,8,commission\r\n/);
    expect(statements.KWD).toMatch(/,12\.345,8\.100,commission\r\n/);
    expect(statements.KWD).toContain('total,,,,8.100,KWD\r\n');

    for (const payout of [...run.payouts, ...next.payouts]) await payoutRuns.markPayoutPaid(deps(), OPERATOR, shop.programId, payout.id, { reference: `paid-${payout.id}` });

    // KPI figures (revenue as sold, commission paid): one line per currency, never added up.
    const range = { from: new Date(Date.now() - DAY), to: new Date(Date.now() + DAY), partnerId: null };
    const kpis = await moneyTotals(db.pool, shop.programId, range);
    expect(kpis.map((k: { currency: string; revenue_cents: string; commission_paid_cents: string }) => [k.currency, k.revenue_cents, k.commission_paid_cents]).sort()).toEqual([
      ['GBP', '4999', '800'],
      ['JPY', '5000', '8'],
      ['KWD', '12345', '8100'],
    ]);
    const cards = kpiCards({ kpis, funnel: { clicks: 0, leads: 0, buyers: 0 }, before: { kpis: [], funnel: { clicks: 0, leads: 0, buyers: 0 } } } as never, 30).value;
    const card = (id: string) => [...new RegExp(`id="kpi-${id}">(.*?)</li>`).exec(cards)![1]!.matchAll(/<span class="kpi-value">(.*?)<\/span>/g)].map((value) => value[1]);
    expect(card('revenue')).toEqual(['£49.99', '¥5,000', 'KWD\u00a012.345']);
    expect(card('commission_paid')).toEqual(['£8.00', '¥8', 'KWD\u00a08.100']);
  });
});

describe('Stripe payments in JPY and in ISK (a currency Stripe counts in hundredths)', () => {
  const stripeShop = async (acceptAllCurrencies: boolean) => {
    const seeded = await seedStripeCustomer(api, { commission_type: 'percent', commission_rate: 20 });
    if (acceptAllCurrencies) await acceptAll(seeded.shop.programId, true);
    return seeded;
  };
  const inCurrency = (currency: string, amount: number) => (event: any) => {
    const object = event.data.object;
    object.currency = currency;
    if ('amount_total' in object) object.amount_total = amount;
    if ('amount_refunded' in object) {
      object.amount = amount;
      object.amount_captured = amount;
      object.amount_refunded = amount;
    }
  };
  const salesOf = async (programId: number) =>
    (await db.pool.query(
      `SELECT s.currency, s.amount_cents::int AS sale, c.amount_cents::int AS commission, c.refunded_total_cents::int AS refunded
         FROM sales s JOIN commissions c ON c.sale_id = s.id WHERE s.program_id = $1`,
      [programId],
    )).rows;

  it('JPY: 5000 yen as sent, commission 1000 yen', async () => {
    const { shop, vars } = await stripeShop(true);
    await processEventsInOrder(api, await deliverSteps(api, shop, vars, [{ fixture: 'checkout.session.completed.payment', change: inCurrency('jpy', 5000) }]));
    expect(await salesOf(shop.programId)).toEqual([{ currency: 'JPY', sale: 5000, commission: 1000, refunded: 0 }]);
  });

  it('ISK: Stripe sends 5000 krónur as 500000; Affix stores 5000 (ISO has no decimals), refunds likewise', async () => {
    const { shop, vars } = await stripeShop(true);
    await processEventsInOrder(api, await deliverSteps(api, shop, vars, [
      { fixture: 'checkout.session.completed.payment', change: inCurrency('isk', 500_000) },
      { fixture: 'charge.refunded.full', at: 10, change: inCurrency('isk', 500_000) },
    ]));
    expect(await salesOf(shop.programId)).toEqual([{ currency: 'ISK', sale: 5000, commission: 1000, refunded: 5000 }]);
  });

  it('ISK 550 (not a whole króna in Stripe\'s hundredths) fails for good, nothing guessed', async () => {
    const { shop, vars } = await stripeShop(true);
    const [id] = await deliverSteps(api, shop, vars, [{ fixture: 'checkout.session.completed.payment', change: inCurrency('isk', 550) }]);
    await processEventsInOrder(api, [id!]);
    const { rows } = await db.pool.query('SELECT status, reason FROM webhook_events WHERE id = $1', [id]);
    expect(rows[0]).toEqual({ status: 'failed', reason: 'Stripe amount 550 ISK is not a whole number of ISK (Stripe sends ISK as hundredths ending in 00)' });
    expect(await salesOf(shop.programId)).toEqual([]);
  });

  it('ISK 550 without the setting: the currency rule answers first, in the contract words (not the amount\'s)', async () => {
    const { shop, vars } = await stripeShop(false);
    const [id] = await deliverSteps(api, shop, vars, [{ fixture: 'checkout.session.completed.payment', change: inCurrency('isk', 550) }]);
    await processEventsInOrder(api, [id!]);
    const { rows } = await db.pool.query('SELECT status, reason FROM webhook_events WHERE id = $1', [id]);
    expect(rows[0]).toEqual({ status: 'failed', reason: 'currency isk is not supported' });
  });

  it('GBP without the setting: the event fails for good with the contract words', async () => {
    const { shop, vars } = await stripeShop(false);
    const [id] = await deliverSteps(api, shop, vars, [{ fixture: 'checkout.session.completed.payment', change: inCurrency('gbp', 4999) }]);
    await processEventsInOrder(api, [id!]);
    const { rows } = await db.pool.query('SELECT status, reason FROM webhook_events WHERE id = $1', [id]);
    expect(rows[0]).toEqual({ status: 'failed', reason: 'currency gbp is not supported' });
  });
});

describe('paying in Stripe\'s unit', () => {
  /** A program taking every currency, one sale whose 10 % commission is owed, paid out through Stripe. */
  const stripePayout = async (currency: string, saleAmount: number) => {
    clock = new Date();
    const shop = await seedProgram(api, { commission_type: 'percent', commission_rate: 10 });
    await acceptAll(shop.programId, true);
    await payoutConfig.updatePayoutSettings(deps(), OPERATOR, shop.programId, { hold_days: 0, payout_minimums_cents: { [currency]: 1 } });
    await apiSale(api, shop, saleAmount, { currency });
    await payoutConfig.setPayoutDetails(deps(), OPERATOR, shop.programId, shop.partnerId, { payout_method: 'stripe', payout_reference: 'acct_1Currencies' });
    clock = new Date(Date.now() + 60_000);
    await commissionLifecycle.approveDueCommissions(deps());
    const payout = (await payoutRuns.runPayouts(deps(), OPERATOR, shop.programId)).payouts[0]!;
    return { shop, payout };
  };
  const stripeTransfers = () => {
    const sent: Array<Record<string, string>> = [];
    nock('https://api.stripe.com')
      .post('/v1/transfers', (body) => {
        sent.push(body);
        return true;
      })
      .reply(200, (_uri, body) => ({ id: `tr_${sent.length}`, object: 'transfer', ...(body as object) }))
      .persist();
    return sent;
  };
  const pay = (programId: number, payoutId: number) => payoutRuns.payWithStripe({ ...deps(), stripeSecretKey: 'sk_test_affix' }, OPERATOR, programId, payoutId);

  it('ISK 5000 (ISO has no decimals) goes to Stripe as 500000; MGA 500.00 (ISO 50000) as 500 whole ariary', async () => {
    const sent = stripeTransfers();
    try {
      const isk = await stripePayout('ISK', 50_000);
      expect([isk.payout.currency, isk.payout.amountCents]).toEqual(['ISK', 5000]);
      expect(await pay(isk.shop.programId, isk.payout.id)).toMatchObject({ status: 'paid' });
      const mga = await stripePayout('MGA', 500_000);
      expect([mga.payout.currency, mga.payout.amountCents]).toEqual(['MGA', 50_000]);
      expect(await pay(mga.shop.programId, mga.payout.id)).toMatchObject({ status: 'paid' });
      expect(sent.map((body) => [body.currency, body.amount])).toEqual([['isk', '500000'], ['mga', '500']]);
    } finally {
      nock.cleanAll();
    }
  });

  it('an amount Stripe cannot represent (MGA 500.50, KWD 1.235) is not sent: the payout stays pending with the reason', async () => {
    const sent = stripeTransfers();
    try {
      const mga = await stripePayout('MGA', 500_500);
      expect(mga.payout.amountCents).toBe(50_050);
      await expect(pay(mga.shop.programId, mga.payout.id)).rejects.toMatchObject({
        status: 409,
        message: 'This payout cannot be sent through Stripe: Stripe counts MGA in whole units; 50050 minor units is not a whole number of MGA. Pay it another way and mark it paid.',
        init: { code: 'stripe_amount_unrepresentable' },
      });
      const kwd = await stripePayout('KWD', 12_345);
      expect(kwd.payout.amountCents).toBe(1235);
      await expect(pay(kwd.shop.programId, kwd.payout.id)).rejects.toMatchObject({ status: 409, init: { code: 'stripe_amount_unrepresentable' } });
      expect(sent).toEqual([]);
      const { rows } = await db.pool.query('SELECT status FROM payouts WHERE id = ANY($1)', [[mga.payout.id, kwd.payout.id]]);
      expect(rows.map((r) => r.status)).toEqual(['pending', 'pending']);
    } finally {
      nock.cleanAll();
    }
  });
});

describe('the PayPal file in PayPal\'s digits', () => {
  const row = (id: number, currency: 'HUF' | 'TWD' | 'USD', amountCents: number) => ({
    id, batchId: 1, partnerId: id, partnerName: 'Ana', partnerEmail: null, currency: currency as never, amountCents, status: 'pending',
    reference: null, payoutMethod: 'paypal', payoutReference: `ana${id}@paypal.example`,
  });

  it('HUF 150000 (ISO counts fillér) is "1500"; HUF 1500.50 and TWD 10.01, which PayPal refuses, are refused on their line with the reason', () => {
    const lines = payoutCsv('paypal', [row(1, 'HUF', 150_000), row(2, 'HUF', 150_050), row(3, 'TWD', 1001), row(4, 'USD', 1001)], { programName: 'Shop' }).trim().split('\r\n').slice(1);
    expect(lines).toEqual([
      'ana1@paypal.example,1500,HUF,payout-1,"Shop commissions, payout 1",PayPal',
      'ana2@paypal.example,,HUF,payout-2,NOT PAYABLE THROUGH PAYPAL: 1500.50 HUF has more decimals than PayPal takes for HUF (0): pay it another way,PayPal',
      'ana3@paypal.example,,TWD,payout-3,NOT PAYABLE THROUGH PAYPAL: 10.01 TWD has more decimals than PayPal takes for TWD (0): pay it another way,PayPal',
      'ana4@paypal.example,10.01,USD,payout-4,"Shop commissions, payout 4",PayPal',
    ]);
  });
});

describe('the tracking core decides the currency with the program it records the sale in', () => {
  it('trackSale called with GBP on a contract-only program is refused (422), before a duplicate\'s 409; nothing created', async () => {
    const shop = await seedProgram(api);
    const store = new PgStore(db.pool);
    const existing = await apiSale(api, shop, 1000);
    const input = {
      programId: shop.programId, transactionId: uid('core'), customerKey: uid('c'), clickId: existing.clickId, amountCents: 4999, currency: 'GBP',
      occurredAt: null, provider: null, providerPaymentId: null, livemode: null, test: false, saleType: null, isRecurring: false, subscriptionId: null,
      subscriptionInterval: null, eventName: null, taxCents: null, source: 'api', details: {}, now: new Date(),
    };
    await expect(trackSale(store, input)).rejects.toMatchObject({ status: 422, message: 'currency GBP is not supported', init: { code: 'unsupported_currency' } });
    await expect(trackSale(store, { ...input, transactionId: existing.transactionId })).rejects.toMatchObject({ status: 422, init: { code: 'unsupported_currency' } });
    expect((await db.pool.query('SELECT count(*)::int AS n FROM sales WHERE program_id = $1', [shop.programId])).rows[0].n).toBe(1);
    // Switched on, the same call is taken, in GBP.
    await acceptAll(shop.programId, true);
    expect(await trackSale(store, input)).toMatchObject({ attributed: true });
    expect((await db.pool.query('SELECT currency FROM sales WHERE processor_event_id = $1', [input.transactionId])).rows[0].currency).toBe('GBP');
  });
});

describe('settings', () => {
  it('a new program\'s audit entry records accept_all_currencies', async () => {
    const shop = await seedProgram(api, { accept_all_currencies: true });
    const { rows } = await db.pool.query("SELECT changes FROM audit_log WHERE action = 'program.created' AND program_id = $1", [shop.programId]);
    expect(rows[0].changes).toMatchObject({ accept_all_currencies: { from: null, to: true } });
  });

  it('two keys naming one currency ("usd" and "USD") are refused, not collapsed', async () => {
    const shop = await seedProgram(api);
    await expect(payoutConfig.updatePayoutSettings(deps(), OPERATOR, shop.programId, { payout_minimums_cents: { usd: 1000, USD: 2000 } })).rejects.toMatchObject({
      status: 400,
      init: { fields: { 'payout_minimums_cents.USD': 'usd and USD are both USD: give one minimum per currency.' } },
    });
  });
});
