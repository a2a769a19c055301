// Promo-code attribution, the fifth step: a Stripe checkout or invoice (both shapes) whose
// discounts carry a code the brand mapped to a partner, with nothing else to attribute it, is
// the partner's (step promo_code); the customer is bound so renewals follow; clicks still win.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promotionRefs } from '../src/core/stripe/read-objects.js';
import { type TestApi, type TestDatabase, adminHeaders, bearer, closeTestApi, openTestApi } from './support/harness.js';
import { deliver, fixture, seedStripeCustomer, waitForEvent } from './support/stripe.js';

let db: TestDatabase;
let api: TestApi;

beforeAll(async () => {
  ({ db, api } = await openTestApi(
    { AFFIX_SECRET_KEY: 'promo-codes-test-key-0123456789', AFFIX_WORKER_RETRY_LIMIT: '1', AFFIX_WORKER_RETRY_DELAY_SECONDS: '1', AFFIX_WORKER_POLL_SECONDS: '0.5' },
    { queueUrl: 'own', workers: true },
  ));
});
afterAll(() => closeTestApi({ db, api }));

async function promoProgram() {
  // A program with a partner; no lead for this run: only the code can attribute its payments.
  const seeded = await seedStripeCustomer(api, {}, { lead: false });
  const code = `ANA${seeded.run.replace(/\W/g, '').slice(-8)}`.toUpperCase();
  const vars = { ...seeded.vars, promotion_code: `promo_${seeded.run}`, coupon: `coupon_${seeded.run}`, code, email: `promo_${seeded.run}@example.com` };
  return { ...seeded, vars };
}

const mapPromo = (programId: number, partnerId: number, body: Record<string, unknown>) =>
  api.request('POST', `/api/v1/admin/programs/${programId}/promo-codes`, { body: { partner_id: partnerId, ...body }, headers: adminHeaders });

const saleOf = async (saleId: number) =>
  (await db.pool.query('SELECT s.attribution_step, s.partner_id, c.amount_cents AS commission FROM sales s LEFT JOIN commissions c ON c.sale_id = s.id WHERE s.id = $1', [saleId])).rows[0];

describe('reading discounts', () => {
  it('finds promotion codes, coupons and typed codes in every shape', async () => {
    const vars = { run: 'x', promotion_code: 'promo_1', coupon: 'c_1', code: 'ANA10', program_id: 1, email: 'a@b.c', click_id: '', customer_key: '' };
    expect(promotionRefs((await fixture('checkout.session.completed.promo', vars)).data.object).sort()).toEqual(['ANA10', 'c_1', 'promo_1']);
    expect(promotionRefs((await fixture('invoice.payment_succeeded.first-promo', vars)).data.object).sort()).toEqual(['c_1', 'promo_1']);
    expect(promotionRefs((await fixture('invoice.payment_succeeded.first-promo-legacy', vars)).data.object).sort()).toEqual(['c_1', 'promo_1']);
    expect(promotionRefs((await fixture('checkout.session.completed.payment', vars)).data.object)).toEqual([]);
  });
});

describe('promo_code attribution', () => {
  it('a checkout with a mapped promotion code is the partner’s (step promo_code); without the mapping it is unattributed', async () => {
    const unmapped = await promoProgram();
    const before = await fixture('checkout.session.completed.promo', unmapped.vars);
    expect((await deliver(api, `/api/v1/webhooks/stripe/${unmapped.shop.programId}`, before)).status).toBe(200);
    expect((await waitForEvent(db.pool, before.id, ['processed', 'ignored', 'failed', 'parked'])).sale_id).toBeNull();

    const { shop, vars } = await promoProgram();
    expect((await mapPromo(shop.programId, shop.partnerId, { stripe_promotion_code_id: vars.promotion_code })).status).toBe(201);
    const event = await fixture('checkout.session.completed.promo', vars);
    expect((await deliver(api, `/api/v1/webhooks/stripe/${shop.programId}`, event)).status).toBe(200);
    const row = await waitForEvent(db.pool, event.id, ['processed']);
    expect(row.attribution_step).toBe('promo_code');
    expect(await saleOf(row.sale_id!)).toEqual({ attribution_step: 'promo_code', partner_id: shop.partnerId, commission: 980 });
  });

  it('a first invoice (2025 shape: discounts[].source.coupon) by coupon, and the renewal follows by the bound Stripe customer', async () => {
    const { shop, vars } = await promoProgram();
    await mapPromo(shop.programId, shop.partnerId, { stripe_coupon_id: vars.coupon });
    const first = await fixture('invoice.payment_succeeded.first-promo', vars);
    await deliver(api, `/api/v1/webhooks/stripe/${shop.programId}`, first);
    expect((await waitForEvent(db.pool, first.id, ['processed'])).attribution_step).toBe('promo_code');
    const renewal = await fixture('invoice.paid.renewal', vars);
    const details = renewal.data.object.parent?.subscription_details ?? renewal.data.object.subscription_details;
    if (details) details.metadata = {};
    await deliver(api, `/api/v1/webhooks/stripe/${shop.programId}`, renewal);
    const renewed = await waitForEvent(db.pool, renewal.id, ['processed']);
    // The code's customer is the renewal's: found by its email (step 2) or its Stripe customer (step 3).
    expect(['email', 'stripe_customer']).toContain(renewed.attribution_step);
    expect((await saleOf(renewed.sale_id!)).partner_id).toBe(shop.partnerId);
  });

  it('a first invoice in the legacy shape (discount.promotion_code)', async () => {
    const { shop, vars } = await promoProgram();
    await mapPromo(shop.programId, shop.partnerId, { stripe_promotion_code_id: vars.promotion_code });
    const event = await fixture('invoice.payment_succeeded.first-promo-legacy', vars);
    await deliver(api, `/api/v1/webhooks/stripe/${shop.programId}`, event);
    expect((await waitForEvent(db.pool, event.id, ['processed'])).attribution_step).toBe('promo_code');
  });

  it('a click still wins over a code; a deactivated code attributes nothing', async () => {
    const { shop, vars, clickId } = await promoProgram();
    const other = await api.request('POST', `/api/v1/admin/programs/${shop.programId}/partners`, { body: { name: 'Coupon site' }, headers: adminHeaders });
    const promo = await mapPromo(shop.programId, other.body.data.id, { stripe_promotion_code_id: vars.promotion_code });
    const withClick = await fixture('checkout.session.completed.promo', { ...vars, run: `${vars.run}b` });
    withClick.data.object.metadata = { affix_click_id: clickId, affix_customer_key: `k_${vars.run}` };
    await deliver(api, `/api/v1/webhooks/stripe/${shop.programId}`, withClick);
    const row = await waitForEvent(db.pool, withClick.id, ['processed']);
    expect(row.attribution_step).toBe('click_id');
    expect((await saleOf(row.sale_id!)).partner_id).toBe(shop.partnerId);

    await api.request('PATCH', `/api/v1/admin/programs/${shop.programId}/promo-codes/${promo.body.data.id}`, { body: { active: false }, headers: adminHeaders });
    const after = await fixture('checkout.session.completed.promo', { ...vars, run: `${vars.run}c`, email: `c_${vars.email}` });
    await deliver(api, `/api/v1/webhooks/stripe/${shop.programId}`, after);
    expect((await waitForEvent(db.pool, after.id, ['processed', 'ignored', 'failed', 'parked'])).sale_id).toBeNull();
  });

  it('the tracking API takes promo_code for self-hosted handlers (the typed code, any case)', async () => {
    const { shop, vars } = await promoProgram();
    await mapPromo(shop.programId, shop.partnerId, { code: vars.code });
    const sale = await api.request('POST', '/api/v1/track/sale', {
      body: { transaction_id: `txn_${vars.run}`, amount_cents: 10_000, customer_key: `new_${vars.run}`, promo_code: vars.code.toLowerCase() },
      headers: bearer(shop.apiKey),
    });
    expect(sale.status).toBe(200);
    expect(sale.body).toMatchObject({ attribution_step: 'promo_code', commission_amount_cents: 2000 });
    const unknown = await api.request('POST', '/api/v1/track/sale', {
      body: { transaction_id: `txn2_${vars.run}`, amount_cents: 10_000, customer_key: `new2_${vars.run}`, promo_code: 'NOPE' },
      headers: bearer(shop.apiKey),
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message ?? unknown.body.error).toContain('Customer not found');
  });

  it('a code is mapped once per program; another program cannot use this one’s partner', async () => {
    const { shop, vars } = await promoProgram();
    expect((await mapPromo(shop.programId, shop.partnerId, { code: vars.code })).status).toBe(201);
    expect((await mapPromo(shop.programId, shop.partnerId, { code: vars.code.toLowerCase() })).status).toBe(409);
    const other = await promoProgram();
    const reply = await mapPromo(other.shop.programId, shop.partnerId, { code: 'X1' });
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toBe('partner_id must be a partner of this program');
  });
});
