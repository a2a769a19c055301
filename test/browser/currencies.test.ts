// The currency setting on the set-up page, and payout minimums for any currency, in Chromium.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { adminOf, browserAppWithMail, hasChromium, screenshotsAt, signInToDashboard, submitWithKeyboard, textOf } from '../support/browser.js';
import type { TestApi } from '../support/harness.js';

let api: TestApi;
let page: Page;
browserAppWithMail('currencies-page-key-0123456789abcdef', (opened) => ({ api, page } = opened));
const admin = adminOf(() => api);

describe.skipIf(!hasChromium)('currencies in the dashboard', () => {
  it('the set-up page switches a program to every currency; payout settings take a minimum in yen', async () => {
    page.setDefaultTimeout(5000);
    const account = await admin('POST', '/accounts', { email: 'owner@currencies.example', password: 'currencies owner password' });
    const program = await admin('POST', '/programs', { account_id: account.id, name: 'Yen Shop', domain: 'yen.example.com', commission_type: 'percent', commission_rate: 20 });
    await signInToDashboard(page, api.url, 'owner@currencies.example', 'currencies owner password');

    const base = `${api.url}/dashboard/programs/${program.id}`;
    await page.goto(`${base}/setup#currencies`);
    expect(await page.getByRole('radio', { name: /USD, EUR and VND only/ }).isChecked()).toBe(true);
    await page.getByRole('radio', { name: /Every ISO 4217 currency/ }).check();
    await submitWithKeyboard(page, 'Save the currency setting');
    expect(await textOf(page.locator('.flash'))).toBe('Currency setting saved.');
    expect(await page.getByRole('radio', { name: /Every ISO 4217 currency/ }).isChecked()).toBe(true);
    expect((await admin('GET', `/programs/${program.id}`)).accept_all_currencies).toBe(true);
    await page.locator('#currencies').scrollIntoViewIfNeeded();
    await screenshotsAt(page, 'setup-currencies');

    await page.goto(`${base}/payouts#payout-settings`);
    await page.locator('#payout-settings > details > summary').click();
    await page.getByLabel(/Minimum payout in another currency/).fill('XYZ');
    await page.getByLabel(/and the amount in it/).fill('5000');
    await submitWithKeyboard(page, 'Save payout settings');
    expect(await textOf(page.locator('#payout_minimum_other_currency-error'))).toBe('Give a currency code like GBP, JPY or KWD.');
    await page.getByLabel(/Minimum payout in another currency/).fill('jpy');
    await page.getByLabel(/and the amount in it/).fill('5000');
    await submitWithKeyboard(page, 'Save payout settings');
    expect((await admin('GET', `/programs/${program.id}/payout-settings`)).payout_minimums_cents).toEqual({ JPY: 5000 });
    // Its own field from now on, in yen (no decimals).
    await page.goto(`${base}/payouts#payout-settings`);
    await page.locator('#payout-settings > details > summary').click();
    expect(await page.getByLabel('Minimum payout in JPY (like 5000; empty for none)').inputValue()).toBe('5000');
    await page.getByLabel('Minimum payout in JPY (like 5000; empty for none)').fill('50.5');
    await submitWithKeyboard(page, 'Save payout settings');
    expect(await textOf(page.locator('#payout_minimum_JPY-error'))).toBe('Give an amount in JPY, like 5000.');
    await page.locator('#payout-settings').scrollIntoViewIfNeeded();
    await screenshotsAt(page, 'payout-minimums-currencies');
  });
});
