import { describe, expect, it } from 'vitest';
import { providerMessage } from '../src/core/errors.js';
import {
  type SeededProgram,
  type TestApi,
  type TestDatabase,
  bearer,
  count,
  platformError,
  seedProgram,
  trackClick,
} from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';

let db: TestDatabase;
let api: TestApi;
let shop: SeededProgram;
let other: SeededProgram;

useSeededApi({ programs: [{ attribution_window_days: 30 }, {}] }, (t) => ({ db, api, programs: [shop, other] } = t));

let n = 0;
const uid = (prefix: string) => `${prefix}_${++n}_${Date.now()}`;
const sale = (body: unknown, key: string | null = shop.apiKey, headers: Record<string, string> = {}) =>
  api.request('POST', '/api/v1/track/sale', { body, headers: { ...(key === null ? {} : bearer(key)), ...headers } });
const lead = (body: unknown, key = shop.apiKey) => api.request('POST', '/api/v1/track/lead', { body, headers: bearer(key) });
const saleError = (status: number, name: string, message: string, code: string, details: Record<string, unknown> = {}) =>
  ({ data: null, error: { status, name, message, details, code } });

/** A customer with a click and a lead in the given program. */
async function customer(program: SeededProgram = shop): Promise<{ customerKey: string; clickId: string }> {
  const clickId = await trackClick(api, program.affiliateUrl);
  const customerKey = uid('cust');
  const reply = await lead({ click_id: clickId, customer_key: customerKey }, program.apiKey);
  if (reply.status !== 200) throw new Error(JSON.stringify(reply.body));
  return { customerKey, clickId };
}

describe('authentication (401 rows of §7)', () => {
  it.each([
    [{}, 'Missing or malformed Authorization header. Expected: Bearer <token>'],
    [{ Authorization: 'Basic abc' }, 'Missing or malformed Authorization header. Expected: Bearer <token>'],
    [{ Authorization: 'bearer abc' }, 'Missing or malformed Authorization header. Expected: Bearer <token>'],
    [{ Authorization: 'Bearer ' }, 'Missing API token'],
    [{ Authorization: 'Bearer    ' }, 'Missing API token'],
    [{ Authorization: 'Bearer affix_sk_unknown' }, 'Invalid API token'],
  ])('%j', async (headers, message) => {
    const reply = await sale({ transaction_id: 't', amount_cents: 100, customer_key: 'c' }, null, headers);
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual(saleError(401, 'UnauthorizedError', message, 'unauthorized'));
    expect(reply.headers.get('x-request-id')).toBeTruthy();
  });
});

describe('validation (400 rows of §7)', () => {
  const base = { transaction_id: 'v1', amount_cents: 100, customer_key: 'c' };
  it.each([
    [{ ...base, transaction_id: undefined }, 'transaction_id is required and must be a string'],
    [{ ...base, transaction_id: null }, 'transaction_id is required and must be a string'],
    [{ ...base, transaction_id: 12 }, 'transaction_id is required and must be a string'],
    [{ ...base, transaction_id: '  ' }, 'transaction_id is required and must be a string'],
    [{ ...base, amount_cents: undefined }, 'amount_cents is required and must be a positive integer'],
    [{ ...base, amount_cents: 0 }, 'amount_cents is required and must be a positive integer'],
    [{ ...base, amount_cents: -5 }, 'amount_cents is required and must be a positive integer'],
    [{ ...base, amount_cents: 10.5 }, 'amount_cents is required and must be a positive integer'],
    [{ ...base, amount_cents: '4900' }, 'amount_cents is required and must be a positive integer'],
    [{ ...base, occurred_at: 'yesterday' }, 'occurred_at must be an ISO 8601 time within the last 30 days'],
    [{ ...base, occurred_at: '2026-11-01T10:00:00' }, 'occurred_at must be an ISO 8601 time within the last 30 days'],
    [{ ...base, occurred_at: 1700000000 }, 'occurred_at must be an ISO 8601 time within the last 30 days'],
    [{ ...base, provider: 'venmo' }, providerMessage],
    [{ ...base, provider_payment_id: '' }, 'provider_payment_id must be a string of 1 to 255 characters'],
    [{ ...base, provider_payment_id: 'x'.repeat(256) }, 'provider_payment_id must be a string of 1 to 255 characters'],
    [{ ...base, provider_payment_id: 7 }, 'provider_payment_id must be a string of 1 to 255 characters'],
    [{ ...base, livemode: 'yes' }, 'livemode must be a boolean'],
  ])('%j', async (body, message) => {
    const reply = await sale(body);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(saleError(400, 'BadRequestError', message, 'invalid_request'));
  });

  it('lists the allowed providers', () => {
    expect(providerMessage).toBe('provider must be one of: stripe, paddle, lemonsqueezy, paypal, chargebee, braintree, shopify, manual, other');
  });

  it('occurred_at: 30 days back and 5 minutes ahead are the edges', async () => {
    const now = Date.now();
    const old = new Date(now - 30 * 86_400_000 - 60_000).toISOString();
    const ahead = new Date(now + 6 * 60_000).toISOString();
    for (const occurred_at of [old, ahead]) {
      expect((await sale({ ...base, occurred_at })).body.error.message).toBe('occurred_at must be an ISO 8601 time within the last 30 days');
    }
    const { customerKey } = await customer();
    const okOld = new Date(now - 29 * 86_400_000).toISOString().replace('Z', '+00:00');
    const reply = await sale({ transaction_id: uid('edge'), amount_cents: 100, customer_key: customerKey, occurred_at: okOld });
    expect(reply.status).toBe(200);
    const soon = new Date(now + 4 * 60_000).toISOString();
    expect((await sale({ transaction_id: uid('edge'), amount_cents: 100, customer_key: customerKey, occurred_at: soon })).status).toBe(200);
  });

  it('400 no_attribution Customer not found when neither identifier is sent', async () => {
    const reply = await sale({ transaction_id: 'x', amount_cents: 100, customer_key: null, click_id: '' });
    expect(reply.body).toEqual(saleError(400, 'BadRequestError', 'Customer not found. Provide customer_key or click_id.', 'no_attribution'));
  });

  it('malformed JSON still carries a code on this route', async () => {
    const reply = await api.request('POST', '/api/v1/track/sale', {
      raw: '{"transaction_id":',
      headers: { 'Content-Type': 'application/json', ...bearer(shop.apiKey) },
    });
    expect(reply.body).toEqual(saleError(400, 'BadRequestError', 'Malformed JSON body', 'invalid_request'));
  });
});

describe('currency', () => {
  it('422 unsupported_currency, nothing created', async () => {
    const { customerKey } = await customer();
    const txn = uid('gbp');
    const reply = await sale({ transaction_id: txn, amount_cents: 100, customer_key: customerKey, currency: 'GBP' });
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual(saleError(422, 'UnprocessableEntityError', 'currency GBP is not supported', 'unsupported_currency'));
    expect(await count(db.pool, 'SELECT 1 FROM sales WHERE processor_event_id = $1', [txn])).toBe(0);
    // May resend with a supported currency.
    const resend = await sale({ transaction_id: txn, amount_cents: 100, customer_key: customerKey, currency: 'eur' });
    expect(resend.status).toBe(200);
    const { rows } = await db.pool.query('SELECT currency FROM sales WHERE processor_event_id = $1', [txn]);
    expect(rows[0].currency).toBe('EUR');
  });

  it('defaults to USD; VND accepted', async () => {
    const { customerKey } = await customer();
    const a = uid('usd');
    await sale({ transaction_id: a, amount_cents: 100, customer_key: customerKey });
    const b = uid('vnd');
    const reply = await sale({ transaction_id: b, amount_cents: 250000, customer_key: customerKey, currency: 'VND', is_recurring: true });
    expect(reply.status).toBe(200);
    const { rows } = await db.pool.query('SELECT processor_event_id, currency FROM sales WHERE processor_event_id = ANY($1) ORDER BY id', [[a, b]]);
    expect(rows.map((row) => row.currency)).toEqual(['USD', 'VND']);
  });
});

describe('recording and attribution', () => {
  it('records the sale and a 20% commission, attributed by customer_key', async () => {
    const { customerKey } = await customer();
    const txn = uid('sale');
    const reply = await sale({
      transaction_id: txn, amount_cents: 4900, customer_key: customerKey, provider: 'stripe', provider_payment_id: 'pi_1',
      livemode: true, tax_cents: 400, sale_type: 'payment', event_name: 'purchase',
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      success: true,
      sale_id: expect.any(Number),
      commission_id: expect.any(Number),
      message: 'Sale tracked successfully',
      attribution_step: 'customer_key',
      commission_amount_cents: 980,
    });
    const { rows } = await db.pool.query(
      `SELECT s.amount_cents, s.partner_id, s.tax_cents, c.amount_cents AS commission, c.status, cu.status AS customer_status
         FROM sales s JOIN commissions c ON c.sale_id = s.id JOIN customers cu ON cu.id = s.customer_id WHERE s.id = $1`,
      [reply.body.sale_id],
    );
    expect(rows).toEqual([{ amount_cents: 4900, partner_id: shop.partnerId, tax_cents: 400, commission: 980, status: 'pending', customer_status: 'customer' }]);
  });

  it('falls back to click_id, creating the customer and binding the key', async () => {
    const clickId = await trackClick(api, shop.affiliateUrl);
    const customerKey = uid('late');
    const reply = await sale({ transaction_id: uid('byclick'), amount_cents: 1000, customer_key: customerKey, click_id: clickId });
    expect(reply.body.attribution_step).toBe('click_id');
    const { rows } = await db.pool.query('SELECT customer_key, status FROM customers WHERE click_id = $1', [clickId]);
    expect(rows).toEqual([{ customer_key: customerKey, status: 'customer' }]);
  });

  it('customer_key wins over click_id', async () => {
    const { customerKey, clickId } = await customer();
    const stray = await trackClick(api, shop.affiliateUrl);
    const reply = await sale({ transaction_id: uid('order'), amount_cents: 1000, customer_key: customerKey, click_id: stray });
    expect(reply.body.attribution_step).toBe('customer_key');
    const { rows } = await db.pool.query('SELECT c.click_id FROM sales s JOIN customers c ON c.id = s.customer_id WHERE s.id = $1', [reply.body.sale_id]);
    expect(rows[0].click_id).toBe(clickId);
  });

  it('409 duplicate_transaction with details.sale_id, within the brand; another brand records its own', async () => {
    const { customerKey } = await customer();
    const txn = uid('dup');
    const first = await sale({ transaction_id: txn, amount_cents: 500, customer_key: customerKey });
    const again = await sale({ transaction_id: txn, amount_cents: 500, customer_key: customerKey });
    expect(again.status).toBe(409);
    expect(again.body).toEqual(
      saleError(409, 'ConflictError', 'Duplicate transaction_id. This sale has already been recorded.', 'duplicate_transaction', {
        sale_id: first.body.sale_id,
      }),
    );
    // `other` belongs to another brand (account): its own order with the same number is its own sale.
    const otherCustomer = await customer(other);
    const elsewhere = await sale({ transaction_id: txn, amount_cents: 500, customer_key: otherCustomer.customerKey }, other.apiKey);
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.sale_id).not.toBe(first.body.sale_id);
  });

  it('concurrent duplicates record one sale', async () => {
    const { customerKey } = await customer();
    const txn = uid('race');
    const replies = await Promise.all(Array.from({ length: 5 }, () => sale({ transaction_id: txn, amount_cents: 700, customer_key: customerKey })));
    expect(replies.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409]);
    expect(await count(db.pool, 'SELECT 1 FROM sales WHERE processor_event_id = $1', [txn])).toBe(1);
    expect(await count(db.pool, 'SELECT 1 FROM commissions c JOIN sales s ON s.id = c.sale_id WHERE s.processor_event_id = $1', [txn])).toBe(1);
  });

  it('400 Customer not found when nothing resolves', async () => {
    const reply = await sale({ transaction_id: uid('nf'), amount_cents: 100, customer_key: 'nobody', click_id: 'clk_nothing' });
    expect(reply.body).toEqual(saleError(400, 'BadRequestError', 'Customer not found. Provide customer_key or click_id.', 'no_attribution'));
  });

  it('400 No affiliate attribution found for this customer in this program', async () => {
    const foreign = await customer(other);
    const msg = 'No affiliate attribution found for this customer in this program';
    const byClick = await sale({ transaction_id: uid('f1'), amount_cents: 100, click_id: foreign.clickId });
    expect(byClick.body).toEqual(saleError(400, 'BadRequestError', msg, 'no_attribution'));
    const byKey = await sale({ transaction_id: uid('f2'), amount_cents: 100, customer_key: foreign.customerKey });
    expect(byKey.body).toEqual(saleError(400, 'BadRequestError', msg, 'no_attribution'));
  });

  it('400 No partner-program relationship found for a customer without a click', async () => {
    const customerKey = uid('orphan');
    await db.pool.query("INSERT INTO customers (program_id, customer_key, status) VALUES ($1, $2, 'lead')", [shop.programId, customerKey]);
    const reply = await sale({ transaction_id: uid('o'), amount_cents: 100, customer_key: customerKey });
    expect(reply.body).toEqual(saleError(400, 'BadRequestError', 'No partner-program relationship found for this customer', 'no_attribution'));
  });

  it('400 partnerId required to create commission: the sale stays stored and a resend answers 409', async () => {
    const program = await seedProgram(api);
    const { customerKey } = await customer(program);
    await db.pool.query('DELETE FROM partners WHERE id = $1', [program.partnerId]);
    const txn = uid('nopartner');
    const reply = await sale({ transaction_id: txn, amount_cents: 100, customer_key: customerKey }, program.apiKey);
    expect(reply.body).toEqual(saleError(400, 'BadRequestError', 'partnerId required to create commission', 'no_attribution'));
    expect(await count(db.pool, 'SELECT 1 FROM sales WHERE processor_event_id = $1', [txn])).toBe(1);
    expect(await count(db.pool, 'SELECT 1 FROM commissions c JOIN sales s ON s.id = c.sale_id WHERE s.processor_event_id = $1', [txn])).toBe(0);
    expect((await sale({ transaction_id: txn, amount_cents: 100, customer_key: customerKey }, program.apiKey)).status).toBe(409);
  });

  it('500 Failed to create commission: sale stored, commission not, resend answers 409', async () => {
    const { customerKey } = await customer();
    await db.pool.query(`CREATE FUNCTION fail_commission() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'boom'; END $$`);
    await db.pool.query('CREATE TRIGGER fail_commission BEFORE INSERT ON commissions FOR EACH ROW EXECUTE FUNCTION fail_commission()');
    const txn = uid('cfail');
    try {
      const reply = await sale({ transaction_id: txn, amount_cents: 100, customer_key: customerKey });
      expect(reply.status).toBe(500);
      expect(reply.body).toEqual(saleError(500, 'InternalServerError', 'Failed to create commission', 'internal_error'));
    } finally {
      await db.pool.query('DROP TRIGGER fail_commission ON commissions');
    }
    expect(await count(db.pool, 'SELECT 1 FROM sales WHERE processor_event_id = $1', [txn])).toBe(1);
    expect((await sale({ transaction_id: txn, amount_cents: 100, customer_key: customerKey })).status).toBe(409);
  });

  it('500 Sale tracking failed when the sale itself cannot be written; nothing stored, retry works', async () => {
    const { customerKey } = await customer();
    await db.pool.query(`CREATE FUNCTION fail_sale() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'boom'; END $$`);
    await db.pool.query('CREATE TRIGGER fail_sale BEFORE INSERT ON tracking_events FOR EACH ROW EXECUTE FUNCTION fail_sale()');
    const txn = uid('sfail');
    try {
      const reply = await sale({ transaction_id: txn, amount_cents: 100, customer_key: customerKey });
      expect(reply.body).toEqual(saleError(500, 'InternalServerError', 'Sale tracking failed', 'internal_error'));
    } finally {
      await db.pool.query('DROP TRIGGER fail_sale ON tracking_events');
    }
    expect(await count(db.pool, 'SELECT 1 FROM sales WHERE processor_event_id = $1', [txn])).toBe(0);
    expect((await sale({ transaction_id: txn, amount_cents: 100, customer_key: customerKey })).status).toBe(200);
  });
});

describe('attribution window (spec §3)', () => {
  const day = 86_400_000;
  const at = (days: number) => new Date(Date.now() + days * day);
  const withClock = async <T>(when: Date, fn: () => Promise<T>): Promise<T> => {
    api.clock.now = when;
    try {
      return await fn();
    } finally {
      api.clock.now = new Date();
    }
  };

  it('click older than the window relative to signup: not attributed, nothing recorded, checked again next time', async () => {
    const clickId = await withClock(at(-40), () => trackClick(api, shop.affiliateUrl));
    const customerKey = uid('slow');
    await withClock(at(-5), () => lead({ click_id: clickId, customer_key: customerKey })); // signup 35 days after the click
    const txn = uid('w');
    const reply = await sale({ transaction_id: txn, amount_cents: 1000, customer_key: customerKey });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      success: true,
      attributed: false,
      reason: 'attribution_window_expired',
      click_age_days: 35,
      window_days: 30,
      sale_id: null,
      commission_id: null,
    });
    expect(await count(db.pool, 'SELECT 1 FROM sales WHERE processor_event_id = $1', [txn])).toBe(0);
    const again = await sale({ transaction_id: txn, amount_cents: 1000, customer_key: customerKey });
    expect(again.body.attributed).toBe(false);
  });

  it('no signup: measured to the payment; a click-only sale past the window creates no customer', async () => {
    const clickId = await withClock(at(-31), () => trackClick(api, shop.affiliateUrl));
    const reply = await sale({ transaction_id: uid('w2'), amount_cents: 1000, click_id: clickId, customer_key: uid('k') });
    expect(reply.body).toMatchObject({ attributed: false, click_age_days: 31, window_days: 30 });
    expect(await count(db.pool, 'SELECT 1 FROM customers WHERE click_id = $1', [clickId])).toBe(0);
  });

  it('once converted, later payments are not re-checked', async () => {
    const clickId = await withClock(at(-29), () => trackClick(api, shop.affiliateUrl));
    const customerKey = uid('loyal');
    const first = await sale({ transaction_id: uid('w3'), amount_cents: 1000, click_id: clickId, customer_key: customerKey });
    expect(first.body.attributed).toBe(true);
    const later = await withClock(at(200), () =>
      sale({ transaction_id: uid('w4'), amount_cents: 1000, customer_key: customerKey }),
    );
    expect(later.body).toMatchObject({ success: true, attributed: true, sale_id: expect.any(Number) });
  });
});

describe('test mode', () => {
  it('records the sale without a commission and generates test_txn_<timestamp>', async () => {
    const { customerKey } = await customer();
    const reply = await sale({ amount_cents: 2500, customer_key: customerKey, additional_data: { test_mode: true } });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ success: true, commission_id: null, sale_id: expect.any(Number), test_mode: true, commission_reason: 'test_mode' });
    expect(reply.body.transaction_id).toMatch(/^test_txn_\d{13}$/);
    const { rows } = await db.pool.query('SELECT test FROM sales WHERE id = $1', [reply.body.sale_id]);
    expect(rows[0].test).toBe(true);
    expect(await count(db.pool, 'SELECT 1 FROM commissions WHERE sale_id = $1', [reply.body.sale_id])).toBe(0);
    // A test sale is not a conversion: the customer can still make the first real sale.
    const real = await sale({ transaction_id: uid('real'), amount_cents: 2500, customer_key: customerKey });
    expect(real.body.commission_id).toEqual(expect.any(Number));
  });
});

describe('generated test transaction ids', () => {
  it('two test sales in the same millisecond get distinct ids', async () => {
    const { customerKey } = await customer();
    api.clock.now = new Date('2026-11-20T10:00:00.000Z');
    try {
      const first = await sale({ amount_cents: 100, customer_key: customerKey, additional_data: { test_mode: true } });
      const second = await sale({ amount_cents: 100, customer_key: customerKey, additional_data: { test_mode: true } });
      expect(first.body.transaction_id).toBe(`test_txn_${Date.parse('2026-11-20T10:00:00.000Z')}`);
      expect(second.body.transaction_id).toBe(`test_txn_${Date.parse('2026-11-20T10:00:00.000Z') + 1}`);
    } finally {
      api.clock.now = new Date();
    }
  });
});

describe('commission types', () => {
  it('fixed pays the rate in currency units on the first paid sale only', async () => {
    const program = await seedProgram(api, { commission_type: 'fixed', commission_rate: 10 });
    const { customerKey } = await customer(program);
    const first = await sale({ transaction_id: uid('fx'), amount_cents: 4900, customer_key: customerKey }, program.apiKey);
    expect(first.body.commission_amount_cents).toBe(1000);
    const renewal = await sale({ transaction_id: uid('fx'), amount_cents: 4900, customer_key: customerKey, is_recurring: true }, program.apiKey);
    expect(renewal.body).toMatchObject({ success: true, commission_id: null, sale_id: expect.any(Number), commission_reason: 'not_first_sale' });
    expect(first.body).not.toHaveProperty('commission_reason');
  });

  it('a first paid sale sent with is_recurring (a cycle invoice after a trial) earns: the first paid sale, whatever it says', async () => {
    const program = await seedProgram(api, { commission_type: 'percent', commission_rate: 20 });
    const { customerKey } = await customer(program);
    const afterTrial = await sale({ transaction_id: uid('tr'), amount_cents: 2900, customer_key: customerKey, is_recurring: true }, program.apiKey);
    expect(afterTrial.body).toMatchObject({ commission_amount_cents: 580, commission_id: expect.any(Number) });
  });

  it('a first sale reported after a later renewal takes the commission from it (first by occurred_at)', async () => {
    const program = await seedProgram(api, { commission_type: 'percent', commission_rate: 10 });
    const { customerKey } = await customer(program);
    const renewal = await sale({ transaction_id: uid('pc'), amount_cents: 2000, customer_key: customerKey, is_recurring: true }, program.apiKey);
    expect(renewal.body).toMatchObject({ commission_amount_cents: 200, commission_id: expect.any(Number) });
    const first = await sale(
      { transaction_id: uid('pc'), amount_cents: 3000, customer_key: customerKey, occurred_at: new Date(Date.now() - 86_400_000).toISOString() },
      program.apiKey,
    );
    expect(first.body).toMatchObject({ commission_amount_cents: 300, commission_id: expect.any(Number) });
    const moved = await db.pool.query('SELECT s.commission_reason, c.moved_to_sale_id, c.amount_cents - c.deducted_cents AS net FROM sales s JOIN commissions c ON c.sale_id = s.id WHERE s.id = $1', [renewal.body.sale_id]);
    expect(moved.rows).toEqual([{ commission_reason: 'not_first_sale', moved_to_sale_id: first.body.sale_id, net: 0 }]);
    // A later one-off sale does not earn a second first-sale commission.
    const later = await sale({ transaction_id: uid('pc'), amount_cents: 2000, customer_key: customerKey }, program.apiKey);
    expect(later.body).toMatchObject({ commission_id: null, commission_reason: 'not_first_sale' });
  });

  it('recurring_percent pays on renewals too, until duration_months', async () => {
    const program = await seedProgram(api, { commission_type: 'recurring_percent', commission_rate: 25, duration_months: 2 });
    const { customerKey } = await customer(program);
    const first = await sale({ transaction_id: uid('rp'), amount_cents: 2000, customer_key: customerKey, sale_type: 'subscription' }, program.apiKey);
    expect(first.body.commission_amount_cents).toBe(500);
    const renewal = await sale(
      { transaction_id: uid('rp'), amount_cents: 2000, customer_key: customerKey, is_recurring: true, subscription_id: 'sub_1', subscription_interval: 'monthly' },
      program.apiKey,
    );
    expect(renewal.body.commission_amount_cents).toBe(500);
    const afterPeriod = await (async () => {
      api.clock.now = new Date(Date.now() + 70 * 86_400_000);
      try {
        return await sale({ transaction_id: uid('rp'), amount_cents: 2000, customer_key: customerKey, is_recurring: true }, program.apiKey);
      } finally {
        api.clock.now = new Date();
      }
    })();
    expect(afterPeriod.body).toMatchObject({ success: true, commission_id: null, commission_reason: 'duration_ended' });
  });

  it('recurring_fixed', async () => {
    const program = await seedProgram(api, { commission_type: 'recurring_fixed', commission_rate: 3.5 });
    const { customerKey } = await customer(program);
    await sale({ transaction_id: uid('rf'), amount_cents: 2000, customer_key: customerKey }, program.apiKey);
    const renewal = await sale({ transaction_id: uid('rf'), amount_cents: 2000, customer_key: customerKey, is_recurring: true }, program.apiKey);
    expect(renewal.body.commission_amount_cents).toBe(350);
  });
});
