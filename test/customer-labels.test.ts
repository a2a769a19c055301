// Issue 44, item 3: the brand chooses what a partner sees of each customer they referred — the
// masked email (the default, as before), the masked customer key, or the name its backend sends
// with the lead (`customer_name`) — and the portal's Referrals page and both CSVs follow it.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../src/core/secrets.js';
import { type TestApi, type TestDatabase, adminHeaders, bearer, closeTestApi, openTestApi, seedProgram, trackClick } from './support/harness.js';
import { uid } from './support/money.js';

let db: TestDatabase;
let api: TestApi;
beforeAll(async () => {
  ({ db, api } = await openTestApi({ AFFIX_SECRET_KEY: 'customer-labels-test-key-0123456789' }));
});
afterAll(async () => closeTestApi({ db, api }));

const admin = (method: string, path: string, body?: unknown) => api.request(method, `/api/v1/admin${path}`, { body, headers: adminHeaders });
async function portalCookie(email: string) {
  const token = randomBytes(24).toString('base64url');
  await db.pool.query("INSERT INTO partner_sessions (token_hash, email, expires_at) VALUES ($1, lower($2), now() + interval '1 hour')", [sha256(token), email]);
  return { cookie: `affix_portal=${token}` };
}
const text = async (path: string, headers: Record<string, string>) => (await fetch(`${api.url}${path}`, { headers })).text();
/** The customer cells of the page's two tables. */
const cells = (html: string, table: string, column: number) =>
  [...(new RegExp(`<table[^>]*id="${table}"[\\s\\S]*?</table>`).exec(html)?.[0] ?? '').matchAll(/<tr>([\s\S]*?)<\/tr>/g)]
    .map((row) => [...row[1]!.matchAll(/<t[dh][^>]*>([\s\S]*?)<\/t[dh]>/g)].map((c) => c[1]!.replace(/<[^>]+>/g, '').trim()))
    .filter((row) => row.length > column && !/^Customer$|^Sale date$/.test(row[0]!))
    .map((row) => row[column]);

describe("the brand's label for referred customers", () => {
  it('masked email by default; the masked key or the name sent with the lead when the brand chooses; the page and both CSVs follow', async () => {
    const shop = await seedProgram(api, { name: 'Label Shop' });
    const email = `${uid('partner')}@labels.example`;
    expect((await admin('PATCH', `/programs/${shop.programId}/partners/${shop.partnerId}`, { email })).status).toBe(200);
    await db.pool.query('UPDATE partners SET invited_at = now() WHERE id = $1', [shop.partnerId]);
    const code = (await db.pool.query('SELECT short_link FROM referral_links WHERE id = $1', [shop.linkId])).rows[0].short_link;
    // Two customers: one with a name from the brand's backend, one without.
    for (const [key, name, cents] of [['jane.doe@buyer.example', 'Jane D. (Pro plan)', 10_000], ['user_4242', null, 5_000]] as const) {
      const clickId = await trackClick(api, `https://shop.example.com/?aff=${code}`);
      const lead = await api.request('POST', '/api/v1/track/lead', { body: { click_id: clickId, customer_key: key, ...(name ? { customer_name: name } : {}) }, headers: bearer(shop.apiKey) });
      expect(lead.status, JSON.stringify(lead.body)).toBe(200);
      expect((await api.request('POST', '/api/v1/track/sale', { body: { transaction_id: uid('t'), amount_cents: cents, customer_key: key }, headers: bearer(shop.apiKey) })).status).toBe(200);
    }
    // A name longer than 100 characters is refused like any other field.
    expect((await api.request('POST', '/api/v1/track/lead', { body: { customer_key: 'x', customer_name: 'n'.repeat(101) }, headers: bearer(shop.apiKey) })).body.error.message).toBe('customer_name must be at most 100 characters');

    const cookie = await portalCookie(email);
    const base = `/portal/programs/${shop.partnerId}`;
    const seen = async () => {
      const page = await text(`${base}/referrals`, cookie);
      const referralsCsv = (await text(`${base}/referrals.csv`, cookie)).split('\r\n').slice(1, -1).map((l) => l.split(',')[0]);
      const commissionsCsv = (await text(`${base}/commissions.csv`, cookie)).split('\r\n').slice(1, -1).map((l) => l.split(',')[1]);
      return { customers: cells(page, 'customer-table', 0), commissions: cells(page, 'commission-table', 1), referralsCsv, commissionsCsv };
    };
    const all = (names: string[]) => ({ customers: names, commissions: names, referralsCsv: names, commissionsCsv: names });

    // The default: the masked email (and the masked key of a non-email id), as before.
    expect((await admin('GET', `/programs/${shop.programId}/brand`)).body.data.customer_label).toBe('masked_email');
    expect(await seen()).toEqual(all(['u***42', 'j***@buyer.example']));

    // The masked key: an email too loses its domain.
    expect((await admin('PATCH', `/programs/${shop.programId}/brand`, { customer_label: 'masked_key' })).body.data.customer_label).toBe('masked_key');
    expect(await seen()).toEqual(all(['u***42', 'j***le']));

    // The name the backend sent; a customer without one stays masked.
    await admin('PATCH', `/programs/${shop.programId}/brand`, { customer_label: 'name' });
    expect(await seen()).toEqual(all(['u***42', 'Jane D. (Pro plan)']));
    expect(await text(`${base}/referrals`, cookie)).toContain('Customers are shown by the name the brand gave them (masked when it gave none).');

    // Anything else is refused; the choice is audited.
    const refused = await admin('PATCH', `/programs/${shop.programId}/brand`, { customer_label: 'email' });
    expect([refused.status, refused.body.error.message]).toEqual([400, 'customer_label: Choose one of masked_email, masked_key, name.']);
    const changes = (await db.pool.query("SELECT changes FROM audit_log WHERE program_id = $1 AND action = 'brand.updated' ORDER BY id", [shop.programId])).rows.map((r) => r.changes.customerLabel);
    expect(changes).toEqual([{ from: 'masked_email', to: 'masked_key' }, { from: 'masked_key', to: 'name' }]);
  });
});
