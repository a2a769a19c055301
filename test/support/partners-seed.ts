// A program with several partners selling in USD and EUR, a refund, an approved commission paid
// out and one owed: the data the Partners list and a partner's page are read against.
import { type TestApi, bearer, trackClick } from './harness.js';
import { signInToDashboard } from './browser.js';

type Admin = (method: string, path: string, body?: unknown) => Promise<any>;

export async function seedPartnerMoney(api: TestApi, admin: Admin, email: string) {
  const account = await admin('POST', '/accounts', { email, password: 'partners owner password' });
  const program = await admin('POST', '/programs', { account_id: account.id, name: 'Two Currency Shop', domain: 'shop.example.com', commission_type: 'percent', commission_rate: 20 });
  const key = (await admin('POST', `/programs/${program.id}/keys`)).api_key;
  const track = async (path: string, body: unknown) => {
    const reply = await api.request('POST', `/api/v1/track/${path}`, { body, headers: bearer(key) });
    if (reply.status !== 200) throw new Error(`${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body;
  };
  const partner = async (name: string, code: string) => {
    const p = await admin('POST', `/programs/${program.id}/partners`, { name, email: `${code}@partner.example` });
    await admin('POST', `/programs/${program.id}/links`, { partner_id: p.id, short_link: code });
    return p.id as number;
  };
  const ids = { ana: await partner('Ana Alvarez', 'ana'), ben: await partner('Ben Brandt', 'ben'), cy: await partner('Cy Chen', 'cyc'), dee: await partner('Dee Diaz', 'dee') };
  let n = 0;
  /** `clicks` visits of the partner's link; the last `sales.length` of them buy. */
  const traffic = async (code: string, clicks: number, sales: { cents: number; currency: string }[]) => {
    const clickIds: string[] = [];
    for (let i = 0; i < clicks; i += 1) clickIds.push(await trackClick(api, `https://shop.example.com/?aff=${code}`));
    for (const [i, sale] of sales.entries()) {
      n += 1;
      const customer = `${code}_customer_${n}`;
      await track('lead', { click_id: clickIds[i]!, customer_key: customer, email: `${customer}@buyer.example` });
      await track('sale', { transaction_id: `${code}_sale_${n}`, amount_cents: sale.cents, currency: sale.currency, customer_key: customer });
    }
  };
  await traffic('ana', 6, [{ cents: 12_500, currency: 'USD' }, { cents: 4_900, currency: 'USD' }]);
  await traffic('ben', 3, [{ cents: 8_500, currency: 'EUR' }]);
  await traffic('cyc', 9, [{ cents: 30_000, currency: 'USD' }, { cents: 10_000, currency: 'EUR' }]);
  await traffic('dee', 1, []);
  // Ana's second sale is refunded in full; her first is approved, paid out, and Cy's USD one approved (owed).
  await track('refund', { transaction_id: 'ana_sale_2' });
  const commission = async (txn: string) => Number((await api.pool.query('SELECT c.id FROM commissions c JOIN sales s ON s.id = c.sale_id WHERE s.processor_event_id = $1', [txn])).rows[0].id);
  await admin('PATCH', `/programs/${program.id}/partners/${ids.ana}/payout-details`, { payout_method: 'paypal', payout_reference: 'ana@paypal.example' });
  await admin('POST', `/programs/${program.id}/commissions/${await commission('ana_sale_1')}/approve`, { reason: 'checked' });
  const run = await admin('POST', `/programs/${program.id}/payouts/run`);
  await admin('POST', `/programs/${program.id}/payouts/${run.payouts[0].id}/paid`, { reference: 'PAYPAL-ANA-1' });
  await admin('POST', `/programs/${program.id}/commissions/${await commission('cyc_sale_4')}/approve`, { reason: 'checked' });
  return { program, ids };
}

/** Signs the owner in (the seed's password). */
export async function signIn(page: import('playwright-core').Page, url: string, email: string) {
  await signInToDashboard(page, url, email, 'partners owner password');
}
