import { describe, expect, it } from 'vitest';
import {
  type SeededProgram,
  type TestApi,
  type TestDatabase,
  adminHeaders,
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
let strict: SeededProgram;

useSeededApi({ programs: [{}, { lead_auth: 'server_required', allowed_origins: ['https://strict.example.com'] }] }, (t) => ({ db, api, programs: [shop, strict] } = t));

const lead = (body: unknown, headers: Record<string, string> = {}) => api.request('POST', '/api/v1/track/lead', { body, headers });
let n = 0;
const key = () => `user_${++n}`;

describe('POST /api/v1/track/lead', () => {
  it('browser mode (no header): binds the customer key to the click', async () => {
    const clickId = await trackClick(api, shop.affiliateUrl);
    const customerKey = key();
    const reply = await lead({ click_id: clickId, customer_key: customerKey, email: 'Jane@Example.com' });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ success: true, message: 'Lead tracked successfully' });
    const { rows } = await db.pool.query('SELECT status, click_id, partner_id, email_hash IS NOT NULL AS hashed FROM customers WHERE customer_key = $1', [customerKey]);
    expect(rows).toEqual([{ status: 'lead', click_id: clickId, partner_id: shop.partnerId, hashed: true }]);
    expect(await count(db.pool, "SELECT 1 FROM customers WHERE email_hash::text LIKE '%jane%'")).toBe(0);
  });

  it('an empty token after "Bearer " is browser mode too', async () => {
    const clickId = await trackClick(api, shop.affiliateUrl);
    const reply = await lead({ click_id: clickId, customer_key: key() }, { Authorization: 'Bearer ' });
    expect(reply.status).toBe(200);
  });

  it('server mode answers the same body', async () => {
    const clickId = await trackClick(api, shop.affiliateUrl);
    const reply = await lead({ click_id: clickId, customer_key: key(), event_name: 'signup', additional_data: { plan: 'pro' } }, bearer(shop.apiKey));
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ success: true, message: 'Lead tracked successfully' });
  });

  it('tolerates null fields and the extra browser fields', async () => {
    const clickId = await trackClick(api, shop.affiliateUrl);
    const reply = await lead({
      click_id: clickId, customer_key: key(), email: null, event_name: null, page_url: 'https://shop.example.com/signup',
      session_id: 's1', click_ids: [clickId], program_id: shop.programId, has_attribution: true, debug_mode: false,
    });
    expect(reply.status).toBe(200);
  });

  it('401 Invalid API token for a token that matches no program', async () => {
    const reply = await lead({ customer_key: 'x' }, bearer('affix_sk_nope'));
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual(platformError(401, 'UnauthorizedError', 'Invalid API token'));
  });

  it('400 when neither click_id nor customer_key is sent (nulls count as absent)', async () => {
    for (const body of [{}, { click_id: null, customer_key: null }, { email: 'a@b.c' }]) {
      const reply = await lead(body);
      expect(reply.body).toEqual(platformError(400, 'BadRequestError', 'click_id or customer_key is required'));
    }
  });

  it('400 Customer not found for an unknown click or key', async () => {
    const expected = platformError(400, 'BadRequestError', 'Customer not found. Provide a valid click_id or customer_key.');
    expect((await lead({ click_id: 'clk_missing' })).body).toEqual(expected);
    expect((await lead({ customer_key: 'ghost' }, bearer(shop.apiKey))).body).toEqual(expected);
    expect((await lead({ customer_key: 'ghost' })).body).toEqual(expected);
  });

  it('400 Customer does not belong to this program (server mode, other program)', async () => {
    const clickId = await trackClick(api, shop.affiliateUrl);
    const reply = await lead({ click_id: clickId, customer_key: key() }, bearer(strict.apiKey));
    expect(reply.body).toEqual(platformError(400, 'BadRequestError', 'Customer does not belong to this program'));
    const customerKey = key();
    await lead({ click_id: await trackClick(api, shop.affiliateUrl), customer_key: customerKey });
    const byKey = await lead({ customer_key: customerKey }, bearer(strict.apiKey));
    expect(byKey.body).toEqual(platformError(400, 'BadRequestError', 'Customer does not belong to this program'));
  });

  it('400 status transition when the lead is already recorded, and after a sale', async () => {
    const clickId = await trackClick(api, shop.affiliateUrl);
    const customerKey = key();
    expect((await lead({ click_id: clickId, customer_key: customerKey })).status).toBe(200);
    const again = await lead({ customer_key: customerKey }, bearer(shop.apiKey));
    expect(again.body).toEqual(platformError(400, 'BadRequestError', 'Customer status cannot be updated to lead. Current status: lead'));
    const byClick = await lead({ click_id: clickId });
    expect(byClick.body.error.message).toBe('Customer status cannot be updated to lead. Current status: lead');
    await api.request('POST', '/api/v1/track/sale', {
      body: { transaction_id: `t_${customerKey}`, amount_cents: 1000, customer_key: customerKey },
      headers: bearer(shop.apiKey),
    });
    const later = await lead({ customer_key: customerKey }, bearer(shop.apiKey));
    expect(later.body.error.message).toBe('Customer status cannot be updated to lead. Current status: customer');
  });

  it('test mode: 403 program mismatch with a key; no check without one', async () => {
    const clickId = await trackClick(api, shop.affiliateUrl);
    const mismatch = await lead(
      { click_id: clickId, customer_key: key(), additional_data: { test_mode: true, program_id: strict.programId } },
      bearer(shop.apiKey),
    );
    expect(mismatch.status).toBe(403);
    expect(mismatch.body).toEqual(platformError(403, 'ForbiddenError', 'program_id does not match the API key'));
    const browser = await lead({ click_id: clickId, customer_key: key(), additional_data: { test_mode: true, program_id: strict.programId } });
    expect(browser.status).toBe(200);
  });
});

describe('provisional leads (lead_auth = server_required)', () => {
  it('a browser lead is provisional; a server lead settles it', async () => {
    const clickId = await trackClick(api, strict.affiliateUrl);
    const customerKey = key();
    const browser = await lead({ click_id: clickId, customer_key: customerKey }, { Origin: 'https://strict.example.com' });
    expect(browser.status).toBe(200);
    expect(browser.body).toEqual({ success: true, message: 'Lead tracked successfully', provisional: true });
    const provisional = async () =>
      (await db.pool.query('SELECT provisional_lead FROM customers WHERE customer_key = $1', [customerKey])).rows[0].provisional_lead;
    expect(await provisional()).toBe(true);

    const server = await lead({ customer_key: customerKey }, bearer(strict.apiKey));
    expect(server.status).toBe(200);
    expect(server.body).toEqual({ success: true, message: 'Lead tracked successfully' });
    expect(await provisional()).toBe(false);
    // Settled: a further lead is the ordinary status error.
    const again = await lead({ customer_key: customerKey }, bearer(strict.apiKey));
    expect(again.body.error.message).toBe('Customer status cannot be updated to lead. Current status: lead');
  });

  it('a server lead naming another click moves a provisional binding there', async () => {
    const forged = await trackClick(api, strict.affiliateUrl);
    const real = await trackClick(api, strict.affiliateUrl);
    const customerKey = key();
    await lead({ click_id: forged, customer_key: customerKey });
    await lead({ click_id: real, customer_key: customerKey }, bearer(strict.apiKey));
    const { rows } = await db.pool.query('SELECT click_id, provisional_lead FROM customers WHERE customer_key = $1', [customerKey]);
    expect(rows).toEqual([{ click_id: real, provisional_lead: false }]);
  });

  it('a server lead on a server_required program is not provisional', async () => {
    const reply = await lead({ click_id: await trackClick(api, strict.affiliateUrl), customer_key: key() }, bearer(strict.apiKey));
    expect(reply.body).toEqual({ success: true, message: 'Lead tracked successfully' });
  });

  it('a browser lead from an origin the program does not list is refused', async () => {
    const reply = await lead({ click_id: await trackClick(api, strict.affiliateUrl), customer_key: key() }, { Origin: 'https://shop.example.com' });
    expect(reply.status).toBe(403);
  });

  it('lead_auth can be switched through the admin API', async () => {
    const other = await seedProgram(api);
    await api.request('PATCH', `/api/v1/admin/programs/${other.programId}`, { body: { lead_auth: 'server_required' }, headers: adminHeaders });
    const reply = await lead({ click_id: await trackClick(api, other.affiliateUrl), customer_key: key() });
    expect(reply.body.provisional).toBe(true);
  });
});
