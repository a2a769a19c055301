// Finding one's way (issue 43, item 8): the program's pages in two groups, the daily work first
// and set-up, integrations and settings together on a quieter row; one row each at 1280 and at
// 390 px (a phone scrolls a row within itself, never the page); and fields as wide as what they
// hold (a number short, a list of origins long).
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { adminOf, browserAppWithMail, hasChromium, screenshotsAt, signInToDashboard } from '../support/browser.js';
import { type TestApi, bearer } from '../support/harness.js';

let api: TestApi;
let page: Page;
browserAppWithMail('navigation-key-0123456789abcdef', (opened) => ({ api, page } = opened));
const admin = adminOf(() => api);

const nav = () => page.getByRole('navigation', { name: 'Program pages' });
/** The distinct tops of a group's links: one value means one row. */
const rowsOf = async (group: string) => new Set(await nav().getByRole('list', { name: group }).getByRole('link').evaluateAll((links) => links.map((a) => Math.round(a.getBoundingClientRect().top)))).size;
const widthOf = async (label: string) => (await page.getByLabel(label, { exact: true }).boundingBox())!.width;

describe.skipIf(!hasChromium)('the program navigation', () => {
  it('groups the daily work apart from set-up and integrations, one row each at 1280 and 390; fields sized for their content', async () => {
    page.setDefaultTimeout(5000);
    const account = await admin('POST', '/accounts', { email: 'owner@nav.example', password: 'navigation owner password' });
    const program = await admin('POST', '/programs', {
      account_id: account.id, name: 'Northwind Outfitters', domain: 'northwind.example', commission_type: 'percent', commission_rate: 25,
      allowed_origins: ['https://northwind.example', 'https://www.northwind.example', 'https://shop.northwind.example'],
    });
    const key = (await admin('POST', `/programs/${program.id}/keys`)).api_key;
    const track = async (path: string, body: unknown) => {
      const reply = await api.request('POST', `/api/v1/track/${path}`, { body, headers: bearer(key) });
      if (reply.status !== 200) throw new Error(`${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
      return reply.body;
    };
    for (const [name, code, currency, cents] of [['Ana Souza', 'ana', 'USD', 12_000], ['Ben Okafor', 'ben', 'EUR', 8_000], ['Chloé Martin', 'chloe', 'USD', 4_900], ['Dev Patel', 'dev', 'EUR', 19_900]] as const) {
      const partner = await admin('POST', `/programs/${program.id}/partners`, { name, email: `${code}@partners.example` });
      await admin('POST', `/programs/${program.id}/links`, { partner_id: partner.id, short_link: `${code}-nw` });
      const click = (await track('click', { affiliate_url: `https://northwind.example/?aff=${code}-nw` })).click_id;
      await track('lead', { click_id: click, customer_key: `nw_${code}` });
      await track('sale', { transaction_id: `nw_${code}`, amount_cents: cents, currency, customer_key: `nw_${code}` });
    }
    await track('refund', { transaction_id: 'nw_chloe', refund_amount_cents: 2_000 });

    await signInToDashboard(page, api.url, 'owner@nav.example', 'navigation owner password');
    const base = `${api.url}/dashboard/programs/${program.id}`;
    await page.goto(base);

    // Two groups, the daily work first; every page in exactly one.
    expect(await nav().getByRole('list', { name: 'Daily work' }).getByRole('link').allTextContents()).toEqual(['Overview', 'Partners', 'Applications', 'Groups', 'Discounts', 'Links', 'Payouts', 'Activity']);
    expect(await nav().getByRole('list', { name: 'Set-up and integrations' }).getByRole('link').allTextContents()).toEqual(['Set-up', 'Settings', 'Brand', 'Stripe', 'Paddle', 'Lemon Squeezy', 'Webhook inbox', 'Webhooks', 'API keys', 'Audit log']);
    expect(await nav().locator('[aria-current="page"]').textContent()).toBe('Overview');
    expect([await rowsOf('Daily work'), await rowsOf('Set-up and integrations')]).toEqual([1, 1]);
    await screenshotsAt(page, 'navigation-overview');

    // A phone: the daily work in two rows at most, set-up and integrations folded under one line
    // that opens them; the page itself never scrolls sideways.
    await page.setViewportSize({ width: 390, height: 900 });
    expect(await rowsOf('Daily work')).toBeLessThanOrEqual(2);
    expect(await nav().getByRole('link', { name: 'Stripe' }).isVisible()).toBe(false);
    await nav().getByText('Set-up and integrations', { exact: true }).click();
    expect(await nav().getByRole('link', { name: 'Stripe' }).isVisible()).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    // On a page of the second group it is open, its page marked.
    await page.goto(`${base}/keys`);
    const current = nav().locator('[aria-current="page"]');
    expect(await current.textContent()).toBe('API keys');
    expect(await current.isVisible()).toBe(true);
    expect(await rowsOf('Set-up and integrations')).toBeLessThanOrEqual(3);
    await screenshotsAt(page, 'navigation-keys');
    await page.setViewportSize({ width: 1280, height: 900 });

    // Settings: a number's field is short, the list of origins long, a name between.
    await page.goto(`${base}/settings`);
    expect(await nav().locator('[aria-current="page"]').textContent()).toBe('Settings');
    expect(await widthOf('Attribution window (days)')).toBeLessThan(160);
    expect(await widthOf('Allowed browser origins (comma separated)')).toBeGreaterThan(600);
    const name = await widthOf('Name');
    expect(name).toBeGreaterThan(300);
    expect(name).toBeLessThan(600);
    await screenshotsAt(page, 'navigation-settings');
    await page.goto(`${base}/stripe`);
    expect(await widthOf('Signing secret (whsec_…)')).toBeGreaterThan(600);
    await screenshotsAt(page, 'navigation-stripe');
  }, 60_000);
});
