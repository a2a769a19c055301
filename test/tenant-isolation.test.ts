// Tenant isolation: brands (accounts) share one deployment; none can read, change or learn of
// another's data. Each finding of the isolation review has its test here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type SeededProgram,
  type TestApi,
  type TestDatabase,
  adminHeaders,
  bearer,
  closeTestApi,
  openTestApi,
  seedProgram,
  trackClick,
} from './support/harness.js';
import { WEBHOOK_SECRET, deliver, fixture, waitForEvent } from './support/stripe.js';

let db: TestDatabase;
let api: TestApi;
let brandA: SeededProgram;
let brandB: SeededProgram;

beforeAll(async () => {
  ({ db, api } = await openTestApi({ AFFIX_SECRET_KEY: 'tenant-secret-key-0123456', AFFIX_WORKER_POLL_SECONDS: '0.5' }, { queueUrl: 'own', workers: true }));
  brandA = await seedProgram(api);
  brandB = await seedProgram(api);
});
afterAll(() => closeTestApi({ db, api }));

let n = 0;
async function referredCustomer(program: SeededProgram): Promise<string> {
  const clickId = await trackClick(api, program.affiliateUrl);
  const customerKey = `tenant_cust_${++n}_${Date.now()}`;
  const reply = await api.request('POST', '/api/v1/track/lead', { body: { click_id: clickId, customer_key: customerKey }, headers: bearer(program.apiKey) });
  if (reply.status !== 200) throw new Error(JSON.stringify(reply.body));
  return customerKey;
}
const sale = (program: SeededProgram, body: Record<string, unknown>) =>
  api.request('POST', '/api/v1/track/sale', { body, headers: bearer(program.apiKey) });

describe('finding 1: transaction ids are scoped to the brand', () => {
  it("brand A's order_1001 does not swallow brand B's order_1001, and no 409 names another brand's sale", async () => {
    const orderId = `order_1001_${Date.now()}`;
    const a = await sale(brandA, { transaction_id: orderId, amount_cents: 4900, customer_key: await referredCustomer(brandA) });
    expect(a.status).toBe(200);
    const b = await sale(brandB, { transaction_id: orderId, amount_cents: 2500, customer_key: await referredCustomer(brandB) });
    expect(b.status).toBe(200);
    expect(b.body.sale_id).not.toBe(a.body.sale_id);
    expect(b.body.commission_amount_cents).toBe(500);
    const again = await sale(brandB, { transaction_id: orderId, amount_cents: 2500, customer_key: 'whoever' });
    expect(again.status).toBe(409);
    expect(again.body.error.details.sale_id).toBe(b.body.sale_id);
  });

  it('two programs of one brand still dedupe the same transaction id (one checkout, reported twice)', async () => {
    const second = await api.request('POST', '/api/v1/admin/programs', {
      body: { account_id: brandA.accountId, name: 'Second shop', domain: 'two.example.com', commission_type: 'percent', commission_rate: 10 },
      headers: adminHeaders,
    });
    const partner = await api.request('POST', `/api/v1/admin/programs/${second.body.data.id}/partners`, { body: { name: 'P2' }, headers: adminHeaders });
    const code = `two${Date.now()}`;
    await api.request('POST', `/api/v1/admin/programs/${second.body.data.id}/links`, { body: { partner_id: partner.body.data.id, short_link: code }, headers: adminHeaders });
    const key = await api.request('POST', `/api/v1/admin/programs/${second.body.data.id}/keys`, { headers: adminHeaders });
    const sameBrand: SeededProgram = { ...brandA, programId: second.body.data.id, apiKey: key.body.data.api_key, affiliateUrl: `https://two.example.com/?aff=${code}` };
    const orderId = `shared_${Date.now()}`;
    const first = await sale(brandA, { transaction_id: orderId, amount_cents: 1000, customer_key: await referredCustomer(brandA) });
    const duplicate = await sale(sameBrand, { transaction_id: orderId, amount_cents: 1000, customer_key: await referredCustomer(sameBrand) });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error.details.sale_id).toBe(first.body.sale_id);
  });

  it("a Stripe checkout session id recorded by brand A does not block brand B's own session with that id", async () => {
    for (const program of [brandA, brandB]) {
      await api.request('PATCH', `/api/v1/admin/programs/${program.programId}/stripe`, {
        body: { webhook_secret: WEBHOOK_SECRET, livemode_only_commissions: false },
        headers: adminHeaders,
      });
    }
    const run = `tenant${Date.now()}`;
    const saleIds: number[] = [];
    for (const [index, program] of [brandA, brandB].entries()) {
      const clickId = await trackClick(api, program.affiliateUrl);
      const event = await fixture('checkout.session.completed.payment', { run, email: `t${index}@example.com`, click_id: clickId, customer_key: `k${index}${run}`, program_id: program.programId });
      event.id = `${event.id}_${index}`; // two deliveries, one session id (cs_<run>_payment)
      expect((await deliver(api, `/api/v1/webhooks/stripe/${program.programId}`, event)).status).toBe(200);
      const row = await waitForEvent(db.pool, event.id, ['processed', 'ignored', 'failed']);
      expect(row.status).toBe('processed');
      expect(row.reason).toBeNull();
      saleIds.push(row.sale_id!);
    }
    expect(saleIds[0]).not.toBe(saleIds[1]);
  });
});
