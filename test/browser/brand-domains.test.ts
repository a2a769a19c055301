// The partner portal on brands' own hosts in headless Chromium (host names mapped to 127.0.0.1):
// one person enrolled with two brands sees Alpha's program on partners.alpha.test and Beta's on
// partners.beta.test, never the other's; Alpha's links are shown on go.alpha.test, which sends the
// browser on to the shop; an unknown host is a plain 404. Screenshots at 390 and 1280 px; axe clean.
import { randomBytes } from 'node:crypto';
import { type Browser, type Page, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../src/core/secrets.js';
import { CHROMIUM, adminOf, axeAudit, hasChromium, screenshotsAt } from '../support/browser.js';
import { type TestApi, type TestDatabase, bearer, closeTestApi, openTestApi, seedProgram, trackClick } from '../support/harness.js';

let db: TestDatabase;
let api: TestApi;
let browser: Browser;
let page: Page;
const admin = adminOf(() => api);

describe.skipIf(!hasChromium)('the portal on a brand host', () => {
  beforeAll(async () => {
    ({ db, api } = await openTestApi({ AFFIX_SECRET_KEY: 'brand-domains-browser-key-0123456789' }));
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--host-resolver-rules=MAP partners.alpha.test 127.0.0.1, MAP partners.beta.test 127.0.0.1, MAP go.alpha.test 127.0.0.1, MAP nobody.test 127.0.0.1', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await closeTestApi({ db, api });
  });

  it("each brand's host shows its own program; links on the brand's links host; unknown hosts a plain 404", async () => {
    page.setDefaultTimeout(5000);
    const port = new URL(api.url).port;
    const at = (host: string, path: string) => `http://${host}:${port}${path}`;
    const alpha = await seedProgram(api, { name: 'Alpha Outdoor', domain: 'alpha-outdoor.test' });
    const beta = await seedProgram(api, { name: 'Beta Books', domain: 'beta-books.test' });
    const email = 'pat.lee@creator.example';
    const enroll = async (shop: typeof alpha, name: string, who: string, code: string) => {
      const id = (await admin('POST', `/programs/${shop.programId}/partners`, { name, email: who })).id as number;
      await admin('POST', `/programs/${shop.programId}/links`, { partner_id: id, short_link: code });
      await api.pool.query('UPDATE partners SET invited_at = now() WHERE id = $1', [id]);
      return id;
    };
    const patAlpha = await enroll(alpha, 'Pat Lee', email, 'pat-trails');
    const patBeta = await enroll(beta, 'Pat Lee', email, 'pat-reads');
    await enroll(alpha, 'Sam Ortiz', 'sam@creator.example', 'sam-hikes');
    const sell = async (shop: typeof alpha, code: string, txn: string, cents: number, currency: string) => {
      const clickId = await trackClick(api, `https://${shop === alpha ? 'alpha-outdoor' : 'beta-books'}.test/?aff=${code}`);
      const reply = await api.request('POST', '/api/v1/track/sale', { body: { transaction_id: txn, amount_cents: cents, currency, click_id: clickId, customer_key: `${txn}_c` }, headers: bearer(shop.apiKey) });
      expect(reply.status).toBe(200);
    };
    await sell(alpha, 'pat-trails', 'a1', 18_900, 'USD');
    await sell(alpha, 'pat-trails', 'a2', 7_500, 'EUR');
    await sell(alpha, 'pat-trails', 'a3', 4_200, 'USD');
    await api.request('POST', '/api/v1/track/refund', { body: { transaction_id: 'a3' }, headers: bearer(alpha.apiKey) });
    await sell(alpha, 'sam-hikes', 'a4', 9_900, 'USD');
    await sell(beta, 'pat-reads', 'b1', 2_400, 'EUR');
    await api.pool.query("INSERT INTO program_domains (host, program_id, kind) VALUES ('partners.alpha.test', $1, 'portal'), ('go.alpha.test', $1, 'links'), ('partners.beta.test', $2, 'portal')", [alpha.programId, beta.programId]);

    // Pat's session on each brand host (the cookie a sign-in there sets: host-only, /portal).
    const token = randomBytes(24).toString('base64url');
    await api.pool.query("INSERT INTO partner_sessions (token_hash, email, expires_at) VALUES ($1, $2, now() + interval '1 hour')", [sha256(token), email]);
    await page.context().addCookies(['partners.alpha.test', 'partners.beta.test'].map((domain) => ({ name: 'affix_portal', value: token, domain, path: '/portal', httpOnly: true, sameSite: 'Lax' as const })));

    await page.goto(at('partners.alpha.test', '/'));
    expect(new URL(page.url()).pathname).toBe('/portal');
    const overview = await page.locator('main').innerText();
    expect(overview).toContain('Alpha Outdoor');
    expect(overview).not.toContain('Beta Books');
    await screenshotsAt(page, 'brand-host-portal-overview');

    await page.getByRole('link', { name: 'Alpha Outdoor' }).first().click();
    expect(new URL(page.url()).pathname).toBe(`/portal/programs/${patAlpha}`);
    await expect.poll(() => page.locator('#link-numbers').innerText()).toContain('go.alpha.test/pat-trails');
    expect(await page.getByRole('button', { name: 'Copy link pat-trails' }).getAttribute('data-copy')).toBe('https://go.alpha.test/pat-trails');
    expect(await page.locator('#link-numbers').innerText()).not.toContain('sam-hikes');
    await screenshotsAt(page, 'brand-host-portal-program');
    const findings = [];
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      findings.push(...(await axeAudit(page)).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${width}: ${v.id}`));
    }
    expect(findings).toEqual([]);

    // Beta's enrollment of the same person, asked for on Alpha's host: the portal's 404.
    const other = await page.goto(at('partners.alpha.test', `/portal/programs/${patBeta}`));
    expect(other!.status()).toBe(404);
    expect(await page.locator('main').innerText()).not.toContain('Beta Books');
    // On Beta's host: Beta only.
    await page.goto(at('partners.beta.test', '/portal'));
    const betaOverview = await page.locator('main').innerText();
    expect(betaOverview).toContain('Beta Books');
    expect(betaOverview).not.toContain('Alpha Outdoor');

    // The links host sends the browser on to the shop with the code (no shop here: the browser's next request fails).
    const answered = page.waitForResponse((r) => r.url() === at('go.alpha.test', '/pat-trails'));
    await page.goto(at('go.alpha.test', '/pat-trails')).catch(() => null);
    const redirect = await answered;
    expect([redirect.status(), redirect.headers().location]).toEqual([302, 'https://alpha-outdoor.test/?aff=pat-trails']);
    await page.waitForURL(/^chrome-error:/).catch(() => null);
    // Another program's code on Alpha's links host, and a host nobody set: plain 404s that name nothing.
    for (const url of [at('go.alpha.test', '/pat-reads'), at('nobody.test', '/portal')]) {
      const reply = await page.goto(url);
      expect(reply!.status(), url).toBe(404);
      expect((await page.locator('body').innerText()).trim(), url).toBe('Not found');
    }
  }, 60_000);
});
