// Issue 43, item 7: a partner's page shows their money per currency and state (revenue, earned,
// awaiting approval, owed, paid, refunds), their payout method, their links with clicks, leads
// and sales; destructive actions are explicit, each behind its own button, never a default.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { adminOf, axeAudit, browserAppWithMail, hasChromium, screenshotsAt, textOf } from '../support/browser.js';
import type { TestApi } from '../support/harness.js';
import { seedPartnerMoney, signIn } from '../support/partners-seed.js';

let api: TestApi;
let page: Page;
browserAppWithMail('partner-money-key-0123456789abcdef', (opened) => ({ api, page } = opened));
const admin = adminOf(() => api);

/** Serious and critical axe-core violations of the page as it is now. */
const seriousViolations = async () =>
  (await axeAudit(page)).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);

/** Each row of a table as its cells' text. */
const rows = (selector: string) =>
  page.locator(`${selector} tbody tr`).evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => (td.textContent ?? '').replace(/\s+/g, ' ').trim())));

describe.skipIf(!hasChromium)("a partner's page", () => {
  it('shows money by currency and state, links with their numbers, and explicit destructive actions', async () => {
    page.setDefaultTimeout(5000);
    const owner = 'owner@partner-money.example';
    const { program, ids } = await seedPartnerMoney(api, admin, owner);
    await signIn(page, api.url, owner);
    const base = `${api.url}/dashboard/programs/${program.id}`;
    await page.setViewportSize({ width: 1280, height: 900 });

    // Ana: $174 of sales, one refunded in full; $25 earned, paid by PayPal.
    await page.goto(`${base}/partners/${ids.ana}`);
    expect(await rows('#money-table')).toEqual([['USD', '2', '$174.00', '$25.00', '$0.00', '$0.00', '$25.00', '1 commission taken back']]);
    expect(await textOf(page.locator('#payout-method'))).toBe('Payout method: PayPal to ana@paypal.example');
    expect(await rows('#links-table')).toEqual([['ana', 'On', '6', '2', '2']]);
    expect((await rows('#payouts-table')).map((r) => r.slice(1))).toEqual([['$25.00', 'Paid', 'PAYPAL-ANA-1']]);

    // Cy: two currencies, never added; USD approved and owed, EUR awaiting approval.
    await page.goto(`${base}/partners/${ids.cy}`);
    expect(await rows('#money-table')).toEqual([
      ['EUR', '1', '€100.00', '€20.00', '€20.00', '€0.00', '€0.00', 'none taken back'],
      ['USD', '1', '$300.00', '$60.00', '$0.00', '$60.00', '$0.00', 'none taken back'],
    ]);
    expect(await textOf(page.locator('#payout-method'))).toContain('none yet');
    expect(await rows('#links-table')).toEqual([['cyc', 'On', '9', '2', '2']]);

    // No action drop-down; the destructive ones are folded, each its own button with its consequence.
    expect(await page.locator('#actions select#action').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Ban Cy Chen' }).isVisible()).toBe(false);
    await screenshotsAt(page, 'partner-money');
    await page.locator('#actions').getByText('Ban this partner…').click();
    expect(await textOf(page.locator('#actions details.destructive[open]'))).toContain('their commissions awaiting approval are rejected');
    expect(await seriousViolations()).toEqual([]); // partner page with the ban form open
    // A ban without a reason is refused beside its field; nothing changes.
    await page.getByRole('button', { name: 'Ban Cy Chen' }).click();
    expect(await textOf(page.locator('#ban_reason-error'))).toBe('Give a reason.');
    expect((await api.pool.query('SELECT status FROM partners WHERE id = $1', [ids.cy])).rows[0].status).toBe('approved');
    await page.locator('#ban_reason').fill('cookie stuffing');
    await page.getByRole('button', { name: 'Ban Cy Chen' }).click();
    expect(await textOf(page.getByRole('status'))).toBe('Ban: 1 changed.');
    expect((await api.pool.query('SELECT status FROM partners WHERE id = $1', [ids.cy])).rows[0].status).toBe('banned');
    // Banned: the EUR commission awaiting approval is rejected; the approved USD balance waits, still owed.
    expect((await rows('#money-table')).map((r) => [r[3], r[4], r[5]])).toEqual([['€0.00', '€0.00', '€0.00'], ['$60.00', '$0.00', '$60.00']]);
  }, 120_000);
});
