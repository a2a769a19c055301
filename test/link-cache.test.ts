// Issue "at the ceiling": the click reads its link from a cache of under a second. A link turned
// off answers 410 within that second on every instance, and at once on the instance that
// turned it off.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgClickPath } from '../src/db/click-path.js';
import { LinkCache, linksChanged } from '../src/db/link-cache.js';
import { loadConfig } from '../src/platform/config.js';
import { type SeededProgram, type TestApi, type TestDatabase, adminHeaders, closeTestApi, openTestApi, seedProgram } from './support/harness.js';

let db: TestDatabase;
let api: TestApi;
let shop: SeededProgram;

beforeAll(async () => {
  ({ db, api } = await openTestApi());
  shop = await seedProgram(api);
});
afterAll(() => closeTestApi({ db, api }));

const click = () => api.request('POST', '/api/v1/track/click', { body: { affiliate_url: shop.affiliateUrl } });
const setEnabled = (enabled: boolean) => api.request('PATCH', `/api/v1/admin/links/${shop.linkId}`, { body: { enabled }, headers: adminHeaders });

describe('the click path\'s link cache', () => {
  it('another instance\'s change is believed only after the cache\'s lifetime (an injected clock, no waiting)', async () => {
    let now = 1_000;
    const path = new PgClickPath(db.pool, { ttlMs: 500, now: () => now });
    expect((await path.findLinkWithProgram(shop.shortLink))?.link.enabled).toBe(true);
    // Another instance turns the link off: this process is not told.
    await db.pool.query('UPDATE referral_links SET enabled = false WHERE id = $1', [shop.linkId]);
    now += 499;
    expect((await path.findLinkWithProgram(shop.shortLink))?.link.enabled).toBe(true);
    now += 1;
    expect((await path.findLinkWithProgram(shop.shortLink))?.link.enabled).toBe(false);
    await db.pool.query('UPDATE referral_links SET enabled = true WHERE id = $1', [shop.linkId]);
  });

  it('a link turned off through this instance answers 410 at once, and 200 at once when turned back on', async () => {
    expect((await click()).status).toBe(200); // now cached
    expect((await setEnabled(false)).status).toBe(200);
    expect((await click()).status).toBe(410);
    expect((await setEnabled(true)).status).toBe(200);
    expect((await click()).status).toBe(200);
  });

  it('a program setting changed through this instance applies to the next click (allowed origins)', async () => {
    const fromShop = () => api.request('POST', '/api/v1/track/click', { body: { affiliate_url: shop.affiliateUrl }, headers: { Origin: 'https://shop.example.com' } });
    expect((await fromShop()).status).toBe(200);
    const changed = await api.request('PATCH', `/api/v1/admin/programs/${shop.programId}`, { body: { allowed_origins: ['https://elsewhere.example'] }, headers: adminHeaders });
    expect(changed.status).toBe(200);
    expect((await fromShop()).status).toBe(403);
    await api.request('PATCH', `/api/v1/admin/programs/${shop.programId}`, { body: { allowed_origins: ['https://shop.example.com'] }, headers: adminHeaders });
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
