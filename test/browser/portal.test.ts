// The partner portal in headless Chromium, keyboard first: the brand invites, the partner signs
// in from the mail (real SMTP receiver), sees their numbers, copies a link, sets payout details;
// no page scrolls sideways at 390 or 1280 px.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { SHOTS, hasChromium, type BrowserAppWithMail, browserAppWithMail, submitWithKeyboard, textOf as visibleText } from '../support/browser.js';
import { type TestApi, adminHeaders, bearer, seedProgram, trackClick } from '../support/harness.js';

let api: TestApi;
let page: Page;
let smtp: BrowserAppWithMail['smtp'];
browserAppWithMail('portal-browser-key-0123456789', (opened) => ({ api, page, smtp } = opened));

const textOf = (selector: string) => visibleText(page.locator(selector));
const submit = (name: string) => submitWithKeyboard(page, name);

describe.skipIf(!hasChromium)('partner portal', () => {
  it('invited, signs in from the mail, sees their numbers, copies a link and sets payout details', async () => {
    const shop = await seedProgram(api, { name: 'Alpha Shop' });
    const partner = (await api.request('POST', `/api/v1/admin/programs/${shop.programId}/partners`, { body: { name: 'Ana', email: 'ana@partner.example' }, headers: adminHeaders })).body.data.id;
    await api.request('POST', `/api/v1/admin/programs/${shop.programId}/links`, { body: { partner_id: partner, short_link: 'ana-portal' }, headers: adminHeaders });
    const clickId = await trackClick(api, 'https://shop.example.com/?aff=ana-portal');
    await api.request('POST', '/api/v1/track/sale', { body: { transaction_id: 'portal_t1', amount_cents: 12_500, click_id: clickId, customer_key: 'portal_c1' }, headers: bearer(shop.apiKey) });
    await api.request('POST', `/api/v1/admin/programs/${shop.programId}/partners/${partner}/invite`, { headers: adminHeaders });
    await expect.poll(() => smtp.lastLink('ana@partner.example'), { timeout: 5000 }).not.toBeNull();

    await page.goto(`${api.url}/portal/login`);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/portal-sign-in-1280.png`, fullPage: true });
    await page.goto(smtp.lastLink('ana@partner.example')!.replace(/^https?:\/\/[^/]+/, api.url));
    await submit('Sign in');
    expect(new URL(page.url()).pathname).toBe('/portal');
    expect(await textOf('#balances')).toContain('$25.00'); // 20 % of 125.00, in hold
    expect(await textOf(`#program-${partner}`)).toContain('1 clicks · 0 signups · 1 sales');

    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: api.url });
    await page.getByRole('button', { name: 'Copy link ana-portal' }).focus();
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('https://shop.example.com/?aff=ana-portal');

    await page.getByLabel('PayPal or Wise email, IBAN, or Stripe account id').fill('not an email');
    await submit('Save payout details for Alpha Shop');
    expect(await textOf(`#payout_reference_${partner}-error`)).toBe('PayPal and Wise pay to an email address.');
    await page.getByLabel('PayPal or Wise email, IBAN, or Stripe account id').fill('ana@paypal.example');
    await submit('Save payout details for Alpha Shop');
    expect(await textOf('[role="status"]')).toBe('Payout details saved.');

    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      for (const path of ['/portal', '/portal/login']) {
        await page.goto(`${api.url}${path}`);
        const { scroll, inner } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
        expect({ path, width, scroll: Math.min(scroll, inner) }).toEqual({ path, width, scroll });
        if (SHOTS && path === '/portal') await page.screenshot({ path: `${SHOTS}/portal-${width}.png`, fullPage: true });
      }
    }
    await page.goto(`${api.url}/portal`);
    await submit('Sign out');
    expect(new URL(page.url()).pathname).toBe('/portal/login');
  });
});
