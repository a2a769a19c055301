// Issue 43, item 6: the Partners list is a table at desktop widths whose column headers sort,
// with money per currency (a partner's euros never vanish under a dollar column), and a bulk bar
// that appears once a row is ticked, without any script; cards at phone widths.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { adminOf, axeAudit, browserAppWithMail, hasChromium, screenshotsAt, textOf } from '../support/browser.js';
import type { TestApi } from '../support/harness.js';
import { seedPartnerMoney, signIn } from '../support/partners-seed.js';

let api: TestApi;
let page: Page;
browserAppWithMail('partners-table-key-0123456789abcdef', (opened) => ({ api, page } = opened));
const admin = adminOf(() => api);

/** Serious and critical axe-core violations of the page as it is now. */
const seriousViolations = async () =>
  (await axeAudit(page)).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);

/** The partners' names in the table's order. */
const names = async () => (await page.locator('table.partners-table tbody tr td[data-label=Partner] strong').allTextContents()).map((t) => t.trim());
const row = (name: string) => page.locator('table.partners-table tbody tr', { hasText: name });

describe.skipIf(!hasChromium)('the Partners list', () => {
  it('sorts by its column headers, shows money per currency, and shows the bulk bar once a row is ticked', async () => {
    page.setDefaultTimeout(5000);
    const owner = 'owner@partners-table.example';
    const { program } = await seedPartnerMoney(api, admin, owner);
    await signIn(page, api.url, owner);
    const base = `${api.url}/dashboard/programs/${program.id}`;
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${base}/partners`);

    // A table with column headers; no sort drop-down, no currency box.
    expect(await page.getByRole('columnheader', { name: 'Clicks' }).count()).toBe(1);
    expect(await page.locator('select#sort').count()).toBe(0);
    expect(await page.locator('input#currency').count()).toBe(0);

    // Sorting by a header: clicks, most first; again, fewest first.
    await page.getByRole('columnheader', { name: 'Clicks' }).getByRole('link').click();
    expect(await names()).toEqual(['Cy Chen', 'Ana Alvarez', 'Ben Brandt', 'Dee Diaz']);
    expect(await page.getByRole('columnheader', { name: 'Clicks' }).getAttribute('aria-sort')).toBe('descending');
    await page.getByRole('columnheader', { name: 'Clicks' }).getByRole('link').click();
    expect(await names()).toEqual(['Dee Diaz', 'Ben Brandt', 'Ana Alvarez', 'Cy Chen']);
    await page.getByRole('columnheader', { name: 'Partner' }).getByRole('link').click();
    expect(await names()).toEqual(['Ana Alvarez', 'Ben Brandt', 'Cy Chen', 'Dee Diaz']);

    // Money per currency: Ben's €85 shows though the list sorts money by USD; Cy has both.
    expect(await textOf(row('Ben Brandt').locator('td[data-label=Revenue]'))).toBe('€85.00');
    expect(await textOf(row('Ben Brandt').locator('td[data-label=Earned]'))).toBe('€17.00');
    expect(await textOf(row('Cy Chen').locator('td[data-label=Revenue]'))).toBe('$300.00 €100.00');
    // Ana's refunded sale earns nothing: $25.00 of her $174.00.
    expect(await textOf(row('Ana Alvarez').locator('td[data-label=Earned]'))).toBe('$25.00');
    // Revenue sorts by the chosen currency: by EUR, Cy (€100) before Ben (€85) before those with none.
    await page.getByRole('navigation', { name: 'Currency the money columns sort by' }).getByRole('link', { name: 'EUR' }).click();
    await page.getByRole('columnheader', { name: /Revenue/ }).getByRole('link').click();
    expect((await names()).slice(0, 2)).toEqual(['Cy Chen', 'Ben Brandt']);
    expect(await textOf(row('Ben Brandt').locator('td[data-label=Revenue]'))).toBe('€85.00');

    // The bulk bar: hidden until a row is ticked.
    const bar = page.locator('#partners-bulk .bulk-bar');
    expect(await bar.isVisible()).toBe(false);
    await page.getByLabel('Select Dee Diaz', { exact: true }).check();
    expect(await bar.isVisible()).toBe(true);
    expect(await seriousViolations()).toEqual([]); // partners table with the bulk bar
    await screenshotsAt(page, 'partners-table');

    // Without JavaScript too (the bar is CSS alone), and the existing bulk action still runs.
    const browser = page.context().browser()!;
    const plain = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
    await plain.addCookies(await page.context().cookies());
    const noScript = await plain.newPage();
    await noScript.goto(`${base}/partners?sort=name`);
    expect(await noScript.locator('#partners-bulk .bulk-bar').isVisible()).toBe(false);
    await noScript.getByLabel('Select Dee Diaz', { exact: true }).check();
    expect(await noScript.locator('#partners-bulk .bulk-bar').isVisible()).toBe(true);
    await noScript.locator('#action').selectOption('archive');
    await noScript.getByRole('button', { name: 'Apply to the selected partners' }).click();
    expect(await textOf(noScript.getByRole('status'))).toBe('Archive: 1 changed.');
    await plain.close();
    expect((await api.pool.query("SELECT status FROM partners WHERE name = 'Dee Diaz'")).rows[0].status).toBe('archived');

    // Phone width: each row is a card (no header row in view, nothing scrolls sideways).
    await page.setViewportSize({ width: 390, height: 900 });
    await page.goto(`${base}/partners`);
    expect(await page.locator('table.partners-table thead').evaluate((el) => el.getBoundingClientRect().height)).toBeLessThanOrEqual(1);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await textOf(row('Cy Chen').locator('td[data-label=Revenue]'))).toBe('$300.00 €100.00');
  }, 120_000);
});
