// The partner portal in headless Chromium, keyboard first: the brand invites, the partner signs
// in from the mail (real SMTP receiver), sees their numbers, opens the program's page: per-link
// numbers, a deep link with a sub-ID that records a click for its link, a QR code that decodes to
// the link, earnings over time, a paid payout's statement, payout details unset until chosen, the
// terms and resources; no page scrolls sideways at 390 or 1280 px.
import jsQRModule from 'jsqr';
import type { Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { type BrowserAppWithMail, adminOf, browserAppWithMail, hasChromium, screenshotsAt, submitWithKeyboard, textOf as visibleText } from '../support/browser.js';
import { type TestApi, bearer, seedProgram, trackClick } from '../support/harness.js';

let api: TestApi;
let page: Page;
let smtp: BrowserAppWithMail['smtp'];
browserAppWithMail('portal-browser-key-0123456789', (opened) => ({ api, page, smtp } = opened));

const admin = adminOf(() => api);
const textOf = (selector: string) => visibleText(page.locator(selector));
const submit = (name: string) => submitWithKeyboard(page, name);
/** What a person reads in the element: cells apart, whitespace collapsed. */
const seen = async (selector: string) => (await page.locator(selector).first().innerText()).replace(/\s+/g, ' ').trim();

// jsqr is CommonJS with its function as the default export.
const jsQR = ((jsQRModule as unknown as { default?: typeof jsQRModule.default }).default ?? jsQRModule) as unknown as typeof jsQRModule.default;

/** The QR code in the element, read back from its pixels. */
async function decodeQr(selector: string): Promise<string | null> {
  const png = PNG.sync.read(await page.locator(selector).first().screenshot());
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data ?? null;
}

describe.skipIf(!hasChromium)('partner portal', () => {
  it('invited, signs in from the mail; per-link numbers, a deep link with a sub-ID, a QR code, earnings, a statement, payout details', async () => {
    page.setDefaultTimeout(5000);
    const shop = await seedProgram(api, { name: 'Alpha Shop' });
    await admin('PATCH', `/programs/${shop.programId}/application-settings`, { terms_text: 'No paid search on our brand name.', partner_resources: 'Logos: https://shop.example.com/press\nSay "Alpha" with a capital A.' });
    const partner = (await admin('POST', `/programs/${shop.programId}/partners`, { name: 'Ana', email: 'ana@partner.example' })).id;
    const link = await admin('POST', `/programs/${shop.programId}/links`, { partner_id: partner, short_link: 'ana-portal' });
    const clickId = await trackClick(api, 'https://shop.example.com/?aff=ana-portal');
    await api.request('POST', '/api/v1/track/sale', { body: { transaction_id: 'portal_t1', amount_cents: 12_500, click_id: clickId, customer_key: 'portal_c1' }, headers: bearer(shop.apiKey) });
    await admin('POST', `/programs/${shop.programId}/partners/${partner}/invite`);
    await expect.poll(() => smtp.lastLink('ana@partner.example'), { timeout: 5000 }).not.toBeNull();

    await page.goto(`${api.url}/portal/login`);
    await page.goto(smtp.lastLink('ana@partner.example')!.replace(/^https?:\/\/[^/]+/, api.url));
    await submit('Sign in');
    expect(new URL(page.url()).pathname).toBe('/portal');
    expect(await textOf('#balances')).toContain('$25.00'); // 20 % of 125.00, in hold
    expect(await seen(`#program-${partner} dl.numbers`)).toBe('Clicks 1 Leads 0 Sales 1');
    // Nothing chosen yet: the portal asks, it does not pretend PayPal.
    expect(await seen(`#program-${partner} p.unknown`)).toBe('Choose how you are paid: payout details');
    await screenshotsAt(page, 'portal-overview');

    await page.getByRole('link', { name: 'Alpha Shop' }).click();
    expect(new URL(page.url()).pathname).toBe(`/portal/programs/${partner}`);
    expect(await seen('#link-numbers tbody tr')).toMatch(/^shop\.example\.com\/\?aff=ana-portal Copy 1 0 1 \$25\.00/);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: api.url });
    await page.getByRole('button', { name: 'Copy link ana-portal' }).focus();
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('https://shop.example.com/?aff=ana-portal');
    // The link's QR code decodes to the link.
    await page.getByText('QR code of ana-portal').click();
    expect(await decodeQr('#link-numbers .qr')).toBe('https://shop.example.com/?aff=ana-portal');

    // The link builder: a page of the site, a sub-ID and UTM tags; a wrong page is refused beside its field.
    await page.getByLabel('Page (like /pricing)').fill('//elsewhere.example');
    await submit('Make the link');
    expect(await textOf('#path-error')).toBe('A page of shop.example.com, like /pricing (no other address, no ? or #).');
    await page.getByLabel('Page (like /pricing)').fill('/pricing');
    await page.getByLabel('Sub-ID').fill('yt-video-7');
    await page.getByLabel('utm_source').fill('youtube');
    await submit('Make the link');
    const deep = 'https://shop.example.com/pricing?aff=ana-portal&sub_id=yt-video-7&utm_source=youtube';
    expect(await textOf('#built-url')).toBe(deep);
    expect(await decodeQr('#built .qr')).toBe(deep);
    // A visit through the deep link is a click of that link, in its numbers.
    const visit = await api.request('POST', '/api/v1/track/click', { body: { affiliate_url: deep } });
    expect(visit.status).toBe(200);
    const recorded = await api.pool.query('SELECT link_id, affiliate_url FROM clicks WHERE click_id = $1', [visit.body.click_id]);
    expect({ link: Number(recorded.rows[0].link_id), url: recorded.rows[0].affiliate_url }).toEqual({ link: link.id, url: deep });
    await page.goto(`${api.url}/portal/programs/${partner}`);
    expect(await seen('#link-numbers tbody tr')).toMatch(/ana-portal Copy 2 0 1 \$25\.00/);

    // Earnings over time: this month's bar, and the same number in the table.
    const thisMonth = `${['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][new Date().getUTCMonth()]} ${new Date().getUTCFullYear()}`;
    expect(await page.locator('#earnings svg rect title').allTextContents()).toContain(`${thisMonth}: $25.00`);
    expect(await page.locator('#earnings svg rect').count()).toBe(12);

    // Payout details: unset until chosen; then saved.
    expect(await page.getByLabel('Method').inputValue()).toBe('');
    await page.getByLabel('PayPal or Wise email, IBAN, or Stripe account id').fill('ana@paypal.example');
    await submit('Save payout details');
    expect(await textOf(`#payout_method_${partner}-error`)).toBe('Choose how you are paid.');
    await page.getByLabel('Method').selectOption('paypal');
    await page.getByLabel('PayPal or Wise email, IBAN, or Stripe account id').fill('not an email');
    await submit('Save payout details');
    expect(await textOf(`#payout_reference_${partner}-error`)).toBe('PayPal and Wise pay to an email address.');
    await page.getByLabel('PayPal or Wise email, IBAN, or Stripe account id').fill('ana@paypal.example');
    await submit('Save payout details');
    expect(await textOf('[role="status"]')).toBe('Payout details saved.');
    expect(await page.getByLabel('Method').inputValue()).toBe('paypal');

    // The brand pays: the payout shows with its reference, and its statement lists the commission.
    const commission = (await api.pool.query('SELECT id FROM commissions WHERE partner_id = $1', [partner])).rows[0].id;
    await admin('POST', `/programs/${shop.programId}/commissions/${commission}/approve`, { reason: 'checked' });
    const run = await admin('POST', `/programs/${shop.programId}/payouts/run`);
    const payoutId = run.payouts[0].id;
    await admin('POST', `/programs/${shop.programId}/payouts/${payoutId}/paid`, { reference: 'PAYPAL-PORTAL-1' });
    await page.reload();
    expect(await seen('#payout-history tbody tr')).toMatch(new RegExp(`^Payout ${payoutId} \\(1 commission\\) \\$25\\.00 Paid PayPal PAYPAL-PORTAL-1 \\d{4}-\\d\\d-\\d\\d`));
    const statement = await page.request.get(`${api.url}${await page.getByRole('link', { name: `Statement of payout ${payoutId} as CSV` }).getAttribute('href')}`);
    expect(statement.headers()['content-disposition']).toContain(`affix-payout-${payoutId}-statement.csv`);
    const lines = (await statement.text()).trim().split('\r\n');
    // The numbered statement (docs/payouts.md, "Statements"): the document, its number, then the payout's facts, a row per line, the total.
    expect(lines[0]).toBe('document,Statement');
    expect(lines[1]).toMatch(/^number,\d+$/);
    expect(lines).toEqual(expect.arrayContaining(['program,Alpha Shop', `payout,${payoutId}`, 'currency,USD', 'status,paid', 'reference,PAYPAL-PORTAL-1']));
    expect(lines.at(-2)).toMatch(new RegExp(`^${commission},portal_t1,\\d{4}-\\d\\d-\\d\\d,125\\.00,25\\.00,commission$`));
    expect(lines.at(-1)).toBe('total,,,,25.00,USD');

    // The program's terms and resources.
    expect(await seen('#terms')).toContain('No paid search on our brand name.');
    expect(await page.getByRole('link', { name: 'https://shop.example.com/press' }).getAttribute('href')).toBe('https://shop.example.com/press');
    expect(await seen('#terms ul')).toBe('Logos: https://shop.example.com/press Say "Alpha" with a capital A.');
    await screenshotsAt(page, 'portal-program');

    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      for (const path of ['/portal', `/portal/programs/${partner}`, '/portal/login']) {
        await page.goto(`${api.url}${path}`);
        const { scroll, inner } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
        expect({ path, width, scroll: Math.min(scroll, inner) }).toEqual({ path, width, scroll });
      }
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${api.url}/portal`);
    await submit('Sign out');
    expect(new URL(page.url()).pathname).toBe('/portal/login');
  }, 60_000);
});
