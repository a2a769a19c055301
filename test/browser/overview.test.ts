// The overview in Chromium: period presets, a card per number with its change against the days
// before, money in each currency as people read it (USD, EUR, VND), a funnel
// of the cards' own numbers, and a chart with an axis and a table beside it.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { adminOf, type BrowserAppWithMail, browserAppWithMail, hasChromium, screenshotsAt, signInToDashboard, textOf } from '../support/browser.js';
import { type TestApi, bearer } from '../support/harness.js';

let api: TestApi;
let page: Page;
browserAppWithMail('overview-page-key-0123456789abcdef', (opened) => ({ api, page } = opened));
const admin = adminOf(() => api);
const DAY = 86_400_000;

/** The text of each card: its label, then each value and change. */
const cards = async () => (await page.locator('ul.kpis li.kpi').allInnerTexts()).map((text) => text.replace(/\s+/g, ' ').trim());

describe.skipIf(!hasChromium)('the overview', () => {
  it('cards with the change against the previous 7 days, money in USD, EUR and VND, and a funnel of the same numbers', async () => {
    page.setDefaultTimeout(5000);
    const account = await admin('POST', '/accounts', { email: 'owner@overview.example', password: 'overview owner password' });
    const program = await admin('POST', '/programs', { account_id: account.id, name: 'Overview Shop', domain: 'shop.example.com', commission_type: 'percent', commission_rate: 10 });
    const partner = await admin('POST', `/programs/${program.id}/partners`, { name: 'Olga' });
    await admin('POST', `/programs/${program.id}/links`, { partner_id: partner.id, short_link: 'olga-overview' });
    const key = (await admin('POST', `/programs/${program.id}/keys`)).api_key;
    const track = async (path: string, body: unknown) => {
      const reply = await api.request('POST', `/api/v1/track/${path}`, { body, headers: bearer(key) });
      if (reply.status !== 200) throw new Error(`${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
      return reply.body;
    };
    const click = async () => (await track('click', { affiliate_url: 'https://shop.example.com/?aff=olga-overview' })).click_id as string;
    const now = new Date();

    // Ten days ago (the 7 days before this week): 2 clicks, 1 signup who bought $100.00.
    api.clock.now = new Date(now.getTime() - 10 * DAY);
    const early = await click();
    await click();
    await track('lead', { click_id: early, customer_key: 'early' });
    await track('sale', { transaction_id: 'overview_early', amount_cents: 10_000, customer_key: 'early' });
    api.clock.now = now;

    // This week: 4 clicks; 2 signups, one of whom buys $50.00; two buy without signing up (€20.00, ₫250,000).
    const [a, b, c, d] = [await click(), await click(), await click(), await click()];
    await track('lead', { click_id: a, customer_key: 'a' });
    await track('lead', { click_id: b, customer_key: 'b' });
    await track('sale', { transaction_id: 'overview_a', amount_cents: 5_000, customer_key: 'a' });
    await track('sale', { transaction_id: 'overview_c', amount_cents: 2_000, currency: 'EUR', click_id: c, customer_key: 'c' });
    await track('sale', { transaction_id: 'overview_d', amount_cents: 250_000, currency: 'VND', click_id: d, customer_key: 'd' });

    await signInToDashboard(page, api.url, 'owner@overview.example', 'overview owner password');
    await page.goto(`${api.url}/dashboard/programs/${program.id}`);
    await page.getByRole('link', { name: 'Last 7 days' }).click();
    expect(await page.getByRole('link', { name: 'Last 7 days' }).getAttribute('aria-current')).toBe('true');

    expect(await cards()).toEqual([
      'Clicks 4 +100% vs the 7 days before',
      'Leads 2 +100% vs the 7 days before',
      'Customers 3 +200% vs the 7 days before',
      'Sales 3 +200% vs the 7 days before',
      'Revenue €20.00 new vs the 7 days before $50.00 −50% vs the 7 days before ₫250,000 new vs the 7 days before',
      'Commission awaiting approval €2.00 new vs the 7 days before $5.00 −50% vs the 7 days before ₫25,000 new vs the 7 days before',
      'Commission approved €0.00 $0.00 ₫0',
      'Commission paid €0.00 $0.00 ₫0',
    ]);
    // The funnel shares the cards' numbers, each a share of the clicks.
    expect(await textOf(page.locator('figure.funnel figcaption'))).toBe('Click → lead 50% · click → customer 75%');
    // The chart has an axis and its numbers as a table.
    expect(await page.locator('#charts svg.wide text').first().textContent()).toBe('0');
    await page.getByText('Daily numbers as a table').click();
    const today = now.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
    expect((await page.locator('#daily-table tbody tr').last().innerText()).replace(/\s+/g, ' ').trim()).toBe(`${today} 4 2 3`);
    await screenshotsAt(page, 'overview-cards');
  }, 60_000);
});
