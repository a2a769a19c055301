// Reward caps in the Stripe workers' batches (docs/rewards.md "Caps under concurrent sales"): two
// worker batches of one program's checkouts, committed side by side, never pay past the
// program's monthly budget; each sale keeps what its checkout said (one-time, the buyer's country).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApi, type TestDatabase, adminHeaders, createTestDatabase, startTestApi, trackClick } from './support/harness.js';
import { type Step, deliverSteps, processEventsAsBatch, seedStripeCustomer } from './support/stripe.js';

let db: TestDatabase;
let api: TestApi;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startTestApi(db.pool, { AFFIX_SECRET_KEY: 'reward-caps-batch-key-0123456789' }, { queueUrl: db.url });
});
afterAll(async () => {
  await api.close();
  await db.drop();
});

describe('reward caps in worker batches', () => {
  it('two batches at once pay exactly the monthly budget, never more', async () => {
    const { shop, vars: first } = await seedStripeCustomer(api, { commission_rate: 20 });
    const put = await api.request('PUT', `/api/v1/admin/programs/${shop.programId}/reward-rules/draft`, {
      body: { rule_set: { rules: [], monthlyBudget: { USD: 2_000 }, defaults: { sale: { id: 'default', name: 'Default', event: 'sale', when: {}, duration: { kind: 'lifetime' }, steps: [{ throughMonth: null, amount: { type: 'percent', rate: '20' } }] } } } },
      headers: adminHeaders,
    });
    expect(put.status).toBe(200);
    expect((await api.request('POST', `/api/v1/admin/programs/${shop.programId}/reward-rules/publish`, { body: {}, headers: adminHeaders })).status).toBe(201);
    const buyers = [first];
    for (let i = 1; i < 4; i++) {
      const clickId = await trackClick(api, shop.affiliateUrl);
      const run = `${first.run}_b${i}`;
      const vars = { run, click_id: clickId, customer_key: `user_${run}`, program_id: shop.programId, email: `buyer_${run}@example.com` };
      expect((await api.request('POST', '/api/v1/track/lead', { body: { click_id: clickId, customer_key: vars.customer_key, email: vars.email } })).status).toBe(200);
      buyers.push(vars);
    }
    const steps: Step[] = [{ fixture: 'checkout.session.completed.payment', change: (e) => (e.data.object.customer_details.address = { country: 'de' }) }];
    const ids = await Promise.all(buyers.map((vars) => deliverSteps(api, shop, vars, steps)));
    await Promise.all([processEventsAsBatch(api, [...ids[0]!, ...ids[1]!]), processEventsAsBatch(api, [...ids[2]!, ...ids[3]!])]);
    const { rows } = await db.pool.query(
      `SELECT s.commission_reason, s.billing_interval, s.buyer_country, c.amount_cents
         FROM sales s LEFT JOIN commissions c ON c.sale_id = s.id WHERE s.program_id = $1 ORDER BY c.amount_cents DESC NULLS LAST`,
      [shop.programId],
    );
    // 20 % of 49.00 is 9.80: two of them, then 0.40 left of 20.00, then nothing.
    expect(rows).toEqual([
      { commission_reason: null, billing_interval: 'one_time', buyer_country: 'DE', amount_cents: 980 },
      { commission_reason: null, billing_interval: 'one_time', buyer_country: 'DE', amount_cents: 980 },
      { commission_reason: null, billing_interval: 'one_time', buyer_country: 'DE', amount_cents: 40 },
      { commission_reason: 'cap_reached', billing_interval: 'one_time', buyer_country: 'DE', amount_cents: null },
    ]);
  });
});
