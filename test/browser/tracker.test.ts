// The tracker in real headless Chromium (Debian's, driven by playwright-core), the page served
// from another origin than the API.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SeededProgram, type TestApi, type TestDatabase, addPartnerLink, count, closeTestApi, openTestApi, seedProgram } from '../support/harness.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`[tests] SKIPPED browser tests: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);

let db: TestDatabase;
let api: TestApi;
let pages: Server;
let pagePort = 0;
let browser: Browser;
let shop: SeededProgram;

/** Pages on localhost:<port>; the API is on 127.0.0.1, another origin. */
function pageHtml(url: URL): string {
  if (url.searchParams.get('affitor')) return peerServiceHtml();
  const attrs = [`data-affix-program-id="${url.searchParams.get('program') ?? shop.programId}"`];
  if (url.searchParams.get('consent')) attrs.push('data-affix-consent="required"');
  const apiBase = url.searchParams.get('api') ?? api.url;
  return `<!doctype html><html><head><title>Shop</title></head><body>
<script src="${apiBase}/js/affix-tracker.js" ${attrs.join(' ')}></script>
<script>window.loadedSynchronously = Boolean(window.affix && window.affix.loaded);</script>
</body></html>`;
}

/**
 * A page integrated with the peer service, unchanged but for the host: its script path, its
 * data-affitor-* attributes, its window.AFFITOR_API_BASE (which wins over a stale attribute).
 */
function peerServiceHtml(): string {
  return `<!doctype html><html><head><title>Shop</title></head><body>
<script>window.AFFITOR_API_BASE = ${JSON.stringify(api.url)};</script>
<script src="${api.url}/js/affitor-tracker.js" data-affitor-program-id="${shop.programId}" data-affitor-api-base="http://127.0.0.1:9"></script>
<script>window.loadedSynchronously = Boolean(window.affitor && window.affitor.loaded && window.affitor === window.affix);</script>
</body></html>`;
}

const SDK_DIST = fileURLToPath(new URL('../../packages/sdk/dist/', import.meta.url));

/** A page that uses @affix/sdk's loadAffix (the built ESM file) instead of a script tag. */
function loaderHtml(): string {
  return `<!doctype html><html><body><script type="module">
import { loadAffix } from '/sdk/index.js';
window.AFFIX_API_BASE = ${JSON.stringify(api.url)};
const first = await loadAffix(${shop.programId});
const second = await loadAffix(${shop.programId});
await first.ready;
window.loaderResult = { same: first === second, loaded: first.loaded, scripts: document.querySelectorAll('script[src*="affix-tracker"]').length };
</script></body></html>`;
}

beforeAll(async () => {
  if (!hasChromium) return;
  pages = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/sdk/index.js') {
      res.setHeader('Content-Type', 'application/javascript');
      return void res.end(readFileSync(join(SDK_DIST, 'index.js')));
    }
    res.setHeader('Content-Type', 'text/html');
    if (url.pathname === '/loader') return void res.end(loaderHtml());
    res.end(pageHtml(url));
  });
  await new Promise<void>((done) => pages.listen(0, '127.0.0.1', done));
  pagePort = (pages.address() as AddressInfo).port;
  ({ db, api } = await openTestApi({}, { queueUrl: 'own' }));
  shop = await seedProgram(api, {
    allowed_origins: [`http://localhost:${pagePort}`, `http://www.brand.example:${pagePort}`, `http://shop.github.io:${pagePort}`, `http://a.b.shop.co.uk:${pagePort}`],
    attribution_window_days: 30,
  });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    // Test host names, all answered by the page server on loopback.
    args: [`--host-resolver-rules=MAP www.brand.example 127.0.0.1, MAP shop.github.io 127.0.0.1, MAP a.b.shop.co.uk 127.0.0.1`, '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}, 60_000);

afterAll(async () => {
  if (!hasChromium) return;
  await browser?.close();
  await closeTestApi({ db, api });
  await new Promise((done) => pages.close(done));
});

async function visit(context: BrowserContext, path: string, host = 'localhost') {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`http://${host}:${pagePort}${path}`);
  await page.evaluate(() => window.affix?.ready);
  return { page, errors };
}

const cookie = async (context: BrowserContext, name: string) => (await context.cookies()).find((c) => c.name === name);

describe.skipIf(!hasChromium)('browser tracker', () => {
  it('records the click from an allowed origin and stores a first-party cookie for the window', async () => {
    const context = await browser.newContext();
    const before = await count(db.pool, 'SELECT 1 FROM clicks WHERE program_id = $1', [shop.programId]);
    const { page, errors } = await visit(context, `/pricing?aff=${shop.shortLink}`);
    expect(await page.evaluate(() => (window as any).loadedSynchronously)).toBe(true);
    const click = await cookie(context, 'affix_click_id');
    expect(click).toMatchObject({ value: expect.stringMatching(/^clk_/), sameSite: 'Lax', secure: false, path: '/', domain: 'localhost' });
    expect(click!.expires - Date.now() / 1000).toBeGreaterThan(30 * 86400 - 60);
    expect(click!.expires - Date.now() / 1000).toBeLessThanOrEqual(30 * 86400 + 5);
    expect(await cookie(context, 'affix_visitor_id')).toBeDefined();
    expect(await count(db.pool, 'SELECT 1 FROM clicks WHERE program_id = $1', [shop.programId])).toBe(before + 1);
    expect(await page.evaluate(() => window.affix!.getData())).toEqual({
      clickId: click!.value, programId: shop.programId, hasAttribution: true, affiliateUrl: `http://localhost:${pagePort}/pricing?aff=${shop.shortLink}`,
    });
    expect(await page.evaluate(() => window.affix!.getClickId())).toBe(click!.value);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a second aff keeps the first click (first-click), and logs the second partner', async () => {
    const context = await browser.newContext();
    await visit(context, `/?aff=${shop.shortLink}`);
    const first = (await cookie(context, 'affix_click_id'))!.value;
    const other = await addPartnerLink(api, shop.programId);
    const { page } = await visit(context, `/?aff=${other.shortLink}`);
    expect((await cookie(context, 'affix_click_id'))!.value).toBe(first);
    expect((await page.evaluate(() => window.affix!.getData())).affiliateUrl).toContain(`aff=${shop.shortLink}`);
    const { rows } = await db.pool.query('SELECT attributed_click_id FROM clicks WHERE partner_id = $1', [other.partnerId]);
    expect(rows).toEqual([{ attributed_click_id: first }]);
    await context.close();
  });

  it('signup() records a lead bound to the click', async () => {
    const context = await browser.newContext();
    const { page } = await visit(context, `/?aff=${shop.shortLink}`);
    await page.evaluate(() => window.affix!.signup('browser_user_1', 'b1@example.com'));
    const { rows } = await db.pool.query('SELECT status, click_id FROM customers WHERE customer_key = $1', ['browser_user_1']);
    expect(rows).toEqual([{ status: 'lead', click_id: (await cookie(context, 'affix_click_id'))!.value }]);
    await context.close();
  });

  it('a page integrated with the peer service works unchanged: script path, data-affitor-*, AFFITOR_API_BASE, window.affitor', async () => {
    const context = await browser.newContext();
    const { page, errors } = await visit(context, `/?aff=${shop.shortLink}&affitor=1`);
    expect(await page.evaluate(() => (window as any).loadedSynchronously)).toBe(true);
    const clickId = (await cookie(context, 'affix_click_id'))?.value;
    expect(clickId).toMatch(/^clk_/);
    await page.evaluate(() => (window as any).affitor.signup('peer_user', 'peer@example.com'));
    await expect.poll(async () => (await db.pool.query('SELECT click_id FROM customers WHERE customer_key = $1', ['peer_user'])).rows).toEqual([{ click_id: clickId }]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('another origin is refused by CORS: no click, no cookie, no page error', async () => {
    const context = await browser.newContext();
    const before = await count(db.pool, 'SELECT 1 FROM clicks WHERE program_id = $1', [shop.programId]);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`http://127.0.0.1:${pagePort}/?aff=${shop.shortLink}`);
    await page.evaluate(() => window.affix?.ready);
    expect(await cookie(context, 'affix_click_id')).toBeUndefined();
    expect(await count(db.pool, 'SELECT 1 FROM clicks WHERE program_id = $1', [shop.programId])).toBe(before);
    expect(await page.evaluate(() => window.affix!.getData().hasAttribution)).toBe(false);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('consent mode: nothing stored or sent before consent(true); consent(false) removes the cookies', async () => {
    const context = await browser.newContext();
    const before = await count(db.pool, 'SELECT 1 FROM clicks WHERE program_id = $1', [shop.programId]);
    const { page } = await visit(context, `/?aff=${shop.shortLink}&consent=1`);
    expect(await context.cookies()).toEqual([]);
    expect(await count(db.pool, 'SELECT 1 FROM clicks WHERE program_id = $1', [shop.programId])).toBe(before);
    expect(await page.evaluate(() => window.affix!.getVisitorId())).toBeNull();
    await page.evaluate(async () => {
      window.affix!.consent(true);
      await window.affix!.ready;
    });
    expect(await cookie(context, 'affix_click_id')).toBeDefined();
    expect(await count(db.pool, 'SELECT 1 FROM clicks WHERE program_id = $1', [shop.programId])).toBe(before + 1);
    await page.evaluate(() => window.affix!.consent(false));
    expect((await context.cookies()).filter((c) => c.name.startsWith('affix_'))).toEqual([]);
    expect(await page.evaluate(() => window.affix!.getData())).toMatchObject({ clickId: null, hasAttribution: false });
    await context.close();
  });

  it('consent mode: not even the probe that finds the cookie domain writes a cookie before consent(true)', async () => {
    const context = await browser.newContext();
    // Every write to document.cookie, recorded before the tracker runs.
    await context.addInitScript(() => {
      const property = Object.getOwnPropertyDescriptor(Document.prototype, 'cookie')!;
      (window as any).cookieWrites = [];
      Object.defineProperty(document, 'cookie', {
        get: () => property.get!.call(document),
        set: (value: string) => {
          (window as any).cookieWrites.push(value.split('=')[0]);
          property.set!.call(document, value);
        },
      });
    });
    const { page } = await visit(context, `/?aff=${shop.shortLink}&consent=1`, 'www.brand.example');
    expect(await page.evaluate(() => (window as any).cookieWrites)).toEqual([]);
    await page.evaluate(async () => {
      window.affix!.consent(true);
      await window.affix!.ready;
    });
    expect(await page.evaluate(() => (window as any).cookieWrites)).toContain('affix_probe');
    expect((await cookie(context, 'affix_click_id'))!.domain).toBe('.brand.example');
    await context.close();
  });

  it('an API that is down never breaks the page', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    // The script loads from the real API, but its api base points at a closed port.
    await page.goto(`http://localhost:${pagePort}/?aff=${shop.shortLink}`);
    await page.evaluate(async (dead) => {
      const script = document.createElement('script');
      script.src = `${dead.api}/js/affix-tracker.js`;
      script.setAttribute('data-affix-program-id', String(dead.program));
      script.setAttribute('data-affix-api-base', 'http://127.0.0.1:9');
      await new Promise((done) => {
        script.onload = done;
        document.body.appendChild(script);
      });
      await window.affix!.ready;
      await window.affix!.signup('nobody');
    }, { api: api.url, program: shop.programId });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('loadAffix (from @affix/sdk) loads the script once and resolves to the same instance', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`http://localhost:${pagePort}/loader?aff=${shop.shortLink}`);
    await page.waitForFunction(() => (window as any).loaderResult);
    expect(await page.evaluate(() => (window as any).loaderResult)).toEqual({ same: true, loaded: true, scripts: 1 });
    expect(await cookie(context, 'affix_click_id')).toBeDefined();
    await context.close();
  });

  it('cookies go on the registrable domain, public-suffix aware', async () => {
    const context = await browser.newContext();
    await visit(context, `/?aff=${shop.shortLink}`, 'www.brand.example');
    expect((await cookie(context, 'affix_click_id'))!.domain).toBe('.brand.example');
    // github.io is a public suffix: the cookie stays on the site itself.
    await visit(context, `/?aff=${shop.shortLink}`, 'shop.github.io');
    // co.uk is a public suffix of two labels: the cookie goes on shop.co.uk, above a.b.
    await visit(context, `/?aff=${shop.shortLink}`, 'a.b.shop.co.uk');
    const cookies = (await context.cookies()).filter((c) => c.name === 'affix_click_id').map((c) => c.domain).sort();
    expect(cookies).toEqual(['.brand.example', '.shop.co.uk', '.shop.github.io']);
    // The browser's answer is asked with a probe cookie, which is gone afterwards.
    expect((await context.cookies()).filter((c) => !c.name.startsWith('affix_') || c.name === 'affix_probe')).toEqual([]);
    await context.close();
  });

  it('a probe cookie left on the registrable domain does not make its public suffix look accepted', async () => {
    const context = await browser.newContext();
    await context.addCookies([{ name: 'affix_probe', value: 'left', domain: '.shop.co.uk', path: '/' }]);
    await visit(context, `/?aff=${shop.shortLink}`, 'a.b.shop.co.uk');
    expect((await cookie(context, 'affix_click_id'))!.domain).toBe('.shop.co.uk');
    await context.close();
  });

  it('the quick start end to end: script tag click, signup(), server trackSale -> attributed commission; trackTest marks a test click', async () => {
    const context = await browser.newContext();
    const { page } = await visit(context, `/?aff=${shop.shortLink}`);
    await page.evaluate(() => window.affix!.signup('quickstart_user', 'qs@example.com'));
    const { Affix } = await import('@affix/sdk/server');
    const server = new Affix({ apiKey: shop.apiKey, apiUrl: api.url });
    const sale = await server.trackSale({ customerExternalId: 'quickstart_user', amount: 4900, invoiceId: `qs_${Date.now()}` });
    expect(sale).toMatchObject({ ok: true, data: { commission_id: expect.any(Number) } });
    const { rows } = await db.pool.query('SELECT c.partner_id, c.amount_cents FROM commissions c WHERE c.id = $1', [sale.data!.commission_id]);
    expect(rows).toEqual([{ partner_id: shop.partnerId, amount_cents: 980 }]);

    const testClicks = () => count(db.pool, 'SELECT 1 FROM clicks WHERE program_id = $1 AND test', [shop.programId]);
    const before = await testClicks();
    await page.evaluate(() => window.affix!.trackTest({ note: 'from the browser' }));
    await expect.poll(testClicks, { timeout: 5000 }).toBe(before + 1);
    await context.close();
  });
  it("getDiscount(): the referring partner's group discount (code and words) from another origin; null without a referral", async () => {
    // A group discount and the partner's code, as the discount job leaves them (test/discounts.test.ts makes them against the processors).
    const other = await addPartnerLink(api, shop.programId);
    const group = (await db.pool.query("INSERT INTO partner_groups (program_id, name, slug, commission_type, commission_rate, hold_days) VALUES ($1, 'Creators', 'creators-disc', 'percent', 20, 30) RETURNING id", [shop.programId])).rows[0].id;
    await db.pool.query('UPDATE partners SET group_id = $2 WHERE id = $1', [other.partnerId, group]);
    const discount = (await db.pool.query("INSERT INTO group_discounts (program_id, group_id, processor, kind, percent_bp, duration, duration_months) VALUES ($1, $2, 'stripe', 'percent', 2000, 'repeating', 3) RETURNING id", [shop.programId, group])).rows[0].id;
    await db.pool.query("INSERT INTO promo_codes (program_id, partner_id, code, stripe_promotion_code_id, group_discount_id) VALUES ($1, $2, 'TRACKERDISC', 'promo_trackerdisc', $3)", [shop.programId, other.partnerId, discount]);
    const context = await browser.newContext();
    const { page, errors } = await visit(context, `/pricing?aff=${other.shortLink}`);
    expect(await page.evaluate(() => window.affix!.getDiscount())).toEqual({ code: 'TRACKERDISC', description: '20 % off for 3 months' });
    // A later page without ?aff= still knows the referral (the stored link code).
    const later = await visit(context, '/checkout');
    expect(await later.page.evaluate(() => window.affix!.getDiscount())).toEqual({ code: 'TRACKERDISC', description: '20 % off for 3 months' });
    const fresh = await browser.newContext();
    const { page: unreferred } = await visit(fresh, '/pricing');
    expect(await unreferred.evaluate(() => window.affix!.getDiscount())).toBeNull();
    expect(errors).toEqual([]);
    await context.close();
    await fresh.close();
  });
});
