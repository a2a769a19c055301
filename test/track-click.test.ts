import { beforeAll, describe, expect, it } from 'vitest';
import { PgClickPath } from '../src/db/tracking/click-path.js';
import { LinkCache, linksChanged } from '../src/db/tracking/link-cache.js';
import { loadConfig } from '../src/platform/config.js';
import {
  type SeededProgram,
  type TestApi,
  type TestDatabase,
  adminHeaders,
  addPartnerLink,
  bearer,
  count,
  platformError,
  seedProgram,
} from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';

let db: TestDatabase;
let api: TestApi;
let shop: SeededProgram;

useSeededApi({ programs: [{ attribution_window_days: 45 }] }, (t) => ({ db, api, programs: [shop] } = t));

const click = (body: unknown, headers: Record<string, string> = {}) => api.request('POST', '/api/v1/track/click', { body, headers });

describe('POST /api/v1/track/click', () => {
  it('records a click and answers the wire body', async () => {
    const reply = await click({ affiliate_url: shop.affiliateUrl });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      success: true,
      click_id: expect.stringMatching(/^clk_/),
      partner_code: shop.shortLink,
      cookie_window_days: 45,
    });
    expect(reply.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await count(db.pool, 'SELECT 1 FROM clicks WHERE click_id = $1 AND partner_id = $2', [reply.body.click_id, shop.partnerId])).toBe(1);
  });

  it('tolerates the nulls and extra fields browsers send', async () => {
    const reply = await click({
      affiliate_url: shop.affiliateUrl,
      page_url: null,
      referrer_url: '',
      existing_click_id: null,
      page_title: 'Pricing',
      session_id: null,
      user_agent: 'Mozilla/5.0',
      screen_resolution: '0x0',
      viewport_size: null,
      language: 'en-US',
      timezone: 'Europe/Paris',
      something_new: { nested: true },
      additional_data: null,
    });
    expect(reply.status).toBe(200);
  });

  it.each([
    [{}, 'affiliate_url is required'],
    [{ affiliate_url: null }, 'affiliate_url is required'],
    [{ affiliate_url: '' }, 'affiliate_url is required'],
    [{ affiliate_url: 'not a url' }, 'Invalid affiliate_url'],
    [{ affiliate_url: 'shop.example.com/?aff=x' }, 'Invalid affiliate_url'],
    [{ affiliate_url: 42 }, 'Invalid affiliate_url'],
    [{ affiliate_url: 'https://shop.example.com/pricing' }, 'No aff parameter found in affiliate_url'],
    [{ affiliate_url: 'https://shop.example.com/?aff=' }, 'No aff parameter found in affiliate_url'],
    [{ affiliate_url: 'https://shop.example.com/?aff=nobody-has-this' }, 'Referral link not found'],
  ])('400 for %j', async (body, message) => {
    const reply = await click(body);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(platformError(400, 'BadRequestError', message));
  });

  it('400 Invalid referral link configuration when the link lost its partner', async () => {
    const extra = await addPartnerLink(api, shop.programId);
    await db.pool.query('DELETE FROM partners WHERE id = $1', [extra.partnerId]);
    const reply = await click({ affiliate_url: `https://shop.example.com/?aff=${extra.shortLink}` });
    expect(reply.body).toEqual(platformError(400, 'BadRequestError', 'Invalid referral link configuration'));
  });

  it('410 link_disabled (typed, with hint and legacy members), no click recorded; on again works', async () => {
    const extra = await addPartnerLink(api, shop.programId);
    const url = `https://shop.example.com/?aff=${extra.shortLink}`;
    await api.request('PATCH', `/api/v1/admin/links/${extra.linkId}`, { body: { enabled: false }, headers: adminHeaders });
    const before = await count(db.pool, 'SELECT 1 FROM clicks');
    const reply = await click({ affiliate_url: url });
    expect(reply.status).toBe(410);
    expect(reply.body).toEqual({
      success: false,
      message: 'This referral link is disabled.',
      error: { code: 'link_disabled', message: 'This referral link is disabled.', hint: expect.any(String) },
    });
    expect(reply.body).not.toHaveProperty('data');
    expect(await count(db.pool, 'SELECT 1 FROM clicks')).toBe(before);
    await api.request('PATCH', `/api/v1/admin/links/${extra.linkId}`, { body: { enabled: true }, headers: adminHeaders });
    expect((await click({ affiliate_url: url })).status).toBe(200);
  });

  it('link codes are case-insensitive: ?aff=ANA finds ana, and Ana cannot be made beside it', async () => {
    const partner = await api.request('POST', `/api/v1/admin/programs/${shop.programId}/partners`, { body: { name: 'Ana' }, headers: adminHeaders });
    const made = await api.request('POST', `/api/v1/admin/programs/${shop.programId}/links`, { body: { partner_id: partner.body.data.id, short_link: 'ana-case' }, headers: adminHeaders });
    expect(made.status).toBe(201);
    expect(made.body.data.url).toBe('https://shop.example.com/?aff=ana-case');
    const reply = await click({ affiliate_url: 'https://shop.example.com/?aff=ANA-Case' });
    expect(reply.status).toBe(200);
    const recorded = await db.pool.query('SELECT link_id FROM clicks WHERE click_id = $1', [reply.body.click_id]);
    expect(Number(recorded.rows[0].link_id)).toBe(made.body.data.id);
    const twin = await api.request('POST', `/api/v1/admin/programs/${shop.programId}/links`, { body: { partner_id: partner.body.data.id, short_link: 'Ana-Case' }, headers: adminHeaders });
    expect(twin.status).toBe(409);
    expect(twin.body.error.message).toBe('short_link Ana-Case is already taken');
  });

  it('a code kept from before codes were case-insensitive answers to its exact spelling; other spellings find the key holder', async () => {
    const first = await addPartnerLink(api, shop.programId);
    const second = await addPartnerLink(api, shop.programId);
    // What migration 0026 leaves when two codes differed only by case: the younger is a twin.
    await db.pool.query("UPDATE referral_links SET short_link = 'Twin', case_twin = true WHERE id = $1", [second.linkId]);
    await db.pool.query("UPDATE referral_links SET short_link = 'twin' WHERE id = $1", [first.linkId]);
    const linkOf = async (code: string) => {
      const reply = await click({ affiliate_url: `https://shop.example.com/?aff=${code}` });
      expect(reply.status).toBe(200);
      const { rows } = await db.pool.query('SELECT link_id FROM clicks WHERE click_id = $1', [reply.body.click_id]);
      return Number(rows[0].link_id);
    };
    expect(await linkOf('Twin')).toBe(second.linkId);
    expect(await linkOf('twin')).toBe(first.linkId);
    expect(await linkOf('TWIN')).toBe(first.linkId);
  });

  it('first-click: a new aff with an existing click id keeps the first click and logs the new partner', async () => {
    const first = (await click({ affiliate_url: shop.affiliateUrl })).body.click_id;
    const other = await addPartnerLink(api, shop.programId);
    const reply = await click({ affiliate_url: `https://shop.example.com/?aff=${other.shortLink}`, existing_click_id: first });
    expect(reply.status).toBe(200);
    expect(reply.body.click_id).toBe(first);
    expect(reply.body.partner_code).toBe(shop.shortLink);
    const { rows } = await db.pool.query('SELECT partner_id, attributed_click_id FROM clicks WHERE partner_id = $1', [other.partnerId]);
    expect(rows).toEqual([{ partner_id: other.partnerId, attributed_click_id: first }]);
  });

  it('an existing click past its window, or unknown, does not hold the visitor', async () => {
    const first = (await click({ affiliate_url: shop.affiliateUrl })).body.click_id;
    const other = await addPartnerLink(api, shop.programId);
    api.clock.now = new Date(Date.now() + 46 * 86_400_000);
    try {
      const late = await click({ affiliate_url: `https://shop.example.com/?aff=${other.shortLink}`, existing_click_id: first });
      expect(late.body.click_id).not.toBe(first);
      expect(late.body.partner_code).toBe(other.shortLink);
    } finally {
      api.clock.now = new Date();
    }
    const unknown = await click({ affiliate_url: shop.affiliateUrl, existing_click_id: 'clk_unknown' });
    expect(unknown.body.click_id).not.toBe('clk_unknown');
  });

  it('test mode: 403 when the Bearer key and additional_data.program_id name different programs', async () => {
    const reply = await click(
      { affiliate_url: shop.affiliateUrl, additional_data: { test_mode: true, program_id: shop.programId + 1000 } },
      bearer(shop.apiKey),
    );
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual(platformError(403, 'ForbiddenError', 'program_id does not match the API key'));
    const same = await click(
      { affiliate_url: shop.affiliateUrl, additional_data: { test_mode: true, program_id: String(shop.programId) } },
      bearer(shop.apiKey),
    );
    expect(same.status).toBe(200);
    // Browser-mode test event (no key): not checked.
    const browser = await click({ affiliate_url: shop.affiliateUrl, additional_data: { test_mode: true, program_id: 999999 } });
    expect(browser.status).toBe(200);
  });
});

describe('CORS on the click route', () => {
  it('answers the preflight for a listed origin', async () => {
    const reply = await api.request('OPTIONS', '/api/v1/track/click', {
      headers: { Origin: 'https://shop.example.com', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
    });
    expect(reply.status).toBe(204);
    expect(reply.headers.get('access-control-allow-origin')).toBe('https://shop.example.com');
    expect(reply.headers.get('access-control-allow-methods')).toContain('POST');
    expect(reply.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('content-type');
  });

  it('gives an unlisted origin no CORS headers, and refuses its click', async () => {
    const preflight = await api.request('OPTIONS', '/api/v1/track/click', {
      headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    const before = await count(db.pool, 'SELECT 1 FROM clicks');
    const reply = await click({ affiliate_url: shop.affiliateUrl }, { Origin: 'https://evil.example' });
    expect(reply.status).toBe(403);
    expect(reply.headers.get('access-control-allow-origin')).toBeNull();
    expect(await count(db.pool, 'SELECT 1 FROM clicks')).toBe(before);
  });

  it('an origin another program lists may not click on this program', async () => {
    await seedProgram(api, { allowed_origins: ['https://other-brand.example'] });
    const reply = await click({ affiliate_url: shop.affiliateUrl }, { Origin: 'https://other-brand.example' });
    expect(reply.status).toBe(403);
    expect(reply.body.error.message).toBe('Origin https://other-brand.example is not allowed for this program. Add it to the program\'s allowed origins.');
  });

  it('the listed origin clicks and can read the response', async () => {
    const reply = await click({ affiliate_url: shop.affiliateUrl }, { Origin: 'https://shop.example.com' });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('access-control-allow-origin')).toBe('https://shop.example.com');
    expect(reply.headers.get('access-control-expose-headers')).toContain('X-Request-ID');
  });
});

describe('failures', () => {
  it('500 Click tracking failed carries the request id in the header only, and records nothing', async () => {
    await db.pool.query(`CREATE FUNCTION fail_click() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk full'; END $$`);
    await db.pool.query('CREATE TRIGGER fail_click BEFORE INSERT ON tracking_events FOR EACH ROW EXECUTE FUNCTION fail_click()');
    try {
      const before = await count(db.pool, 'SELECT 1 FROM clicks');
      const reply = await click({ affiliate_url: shop.affiliateUrl });
      expect(reply.status).toBe(500);
      expect(reply.body).toEqual(platformError(500, 'InternalServerError', 'Click tracking failed'));
      expect(reply.headers.get('x-request-id')).toBeTruthy();
      expect(JSON.stringify(reply.body)).not.toContain(reply.headers.get('x-request-id'));
      expect(await count(db.pool, 'SELECT 1 FROM clicks')).toBe(before);
    } finally {
      await db.pool.query('DROP TRIGGER fail_click ON tracking_events');
    }
  });
});

// The click reads its link from a cache of under a second: a link turned off answers 410 within
// that second on every instance, and at once on the instance that turned it off.
describe('the click path\'s link cache', () => {
  let cached: SeededProgram;
  beforeAll(async () => {
    cached = await seedProgram(api);
  });
  const clickCached = () => click({ affiliate_url: cached.affiliateUrl });
  const setEnabled = (enabled: boolean) => api.request('PATCH', `/api/v1/admin/links/${cached.linkId}`, { body: { enabled }, headers: adminHeaders });

  it('another instance\'s change is believed only after the cache\'s lifetime (an injected clock, no waiting)', async () => {
    let now = 1_000;
    const path = new PgClickPath(db.pool, { ttlMs: 500, now: () => now });
    expect((await path.findLinkWithProgram(cached.shortLink))?.link.enabled).toBe(true);
    // Another instance turns the link off: this process is not told.
    await db.pool.query('UPDATE referral_links SET enabled = false WHERE id = $1', [cached.linkId]);
    now += 499;
    expect((await path.findLinkWithProgram(cached.shortLink))?.link.enabled).toBe(true);
    now += 1;
    expect((await path.findLinkWithProgram(cached.shortLink))?.link.enabled).toBe(false);
    await db.pool.query('UPDATE referral_links SET enabled = true WHERE id = $1', [cached.linkId]);
  });

  it('a link turned off through this instance answers 410 at once, and 200 at once when turned back on', async () => {
    expect((await clickCached()).status).toBe(200); // now cached
    expect((await setEnabled(false)).status).toBe(200);
    expect((await clickCached()).status).toBe(410);
    expect((await setEnabled(true)).status).toBe(200);
    expect((await clickCached()).status).toBe(200);
  });

  it('a program setting changed through this instance applies to the next click (allowed origins)', async () => {
    const fromShop = () => click({ affiliate_url: cached.affiliateUrl }, { Origin: 'https://shop.example.com' });
    expect((await fromShop()).status).toBe(200);
    const changed = await api.request('PATCH', `/api/v1/admin/programs/${cached.programId}`, { body: { allowed_origins: ['https://elsewhere.example'] }, headers: adminHeaders });
    expect(changed.status).toBe(200);
    expect((await fromShop()).status).toBe(403);
    await api.request('PATCH', `/api/v1/admin/programs/${cached.programId}`, { body: { allowed_origins: ['https://shop.example.com'] }, headers: adminHeaders });
    expect((await fromShop()).status).toBe(200);
  });

  it('a read that a change overtook is not kept as newer than the change', async () => {
    const cache = new LinkCache<string>({ ttlMs: 500, now: () => 0 });
    let reads = 0;
    const load = async () => {
      reads += 1;
      if (reads === 1) linksChanged(); // committed while the first read was on its way
      return `read ${reads}`;
    };
    expect(await cache.read('code', load)).toBe('read 1');
    expect(await cache.read('code', load)).toBe('read 2');
    expect(await cache.read('code', load)).toBe('read 2');
  });

  it('is never believed for more than a second, and 0 turns it off', async () => {
    expect(() => loadConfig({ AFFIX_LINK_CACHE_MS: '1001' })).toThrow(/AFFIX_LINK_CACHE_MS/);
    expect(loadConfig({}).linkCacheMs).toBe(500);
    const cache = new LinkCache<string>({ ttlMs: 0, now: () => 0 });
    let reads = 0;
    const load = async () => `read ${++reads}`;
    await cache.read('code', load);
    expect(await cache.read('code', load)).toBe('read 2');
  });
});
