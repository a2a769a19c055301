// Issue 47, item 4: the partner's tax details in the portal — every problem said in words beside
// its field, the TIN typed never sent back, shown masked once saved — and the brand's side: the
// Payouts page lists the partner a run held back for tax details; the tax page sets the threshold
// and offers the year-end export. axe clean and screenshots at 390 and 1280 px.
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../src/core/secrets.js';
import { adminOf, axeAudit, hasChromium, openBrowserApp, screenshotsAt, submitWithKeyboard, textOf as visibleText } from '../support/browser.js';
import type { TestApi } from '../support/harness.js';
import { apiRefund, apiSale } from '../support/money.js';

let opened: Awaited<ReturnType<typeof openBrowserApp>> | undefined;
let api: TestApi;
let page: Page;
beforeAll(async () => {
  if (!hasChromium) return;
  opened = await openBrowserApp({ AFFIX_SECRET_KEY: 'tax-details-browser-key-0123456789' }, {}, { width: 1280, height: 900 });
  ({ api, page } = opened);
}, 60_000);
afterAll(async () => {
  await opened?.close();
});
const admin = adminOf(() => api);
const textOf = (selector: string) => visibleText(page.locator(selector));

async function checkedAtBothWidths(name: string) {
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    const serious = (await axeAudit(page)).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
    expect({ name, width, serious }).toEqual({ name, width, serious: [] });
    const { scroll, inner } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
    expect({ name, width, sideways: scroll > inner }).toEqual({ name, width, sideways: false });
  }
  await screenshotsAt(page, name);
}

async function cookie(name: 'affix_portal' | 'affix_dashboard', insert: string, value: unknown, path: string) {
  const token = randomBytes(24).toString('base64url');
  await api.pool.query(insert, [sha256(token), value]);
  await page.context().addCookies([{ name, value: token, url: `${api.url}${path}` }]);
}

describe.skipIf(!hasChromium)('tax details in the browser', () => {
  it('the portal form says each problem beside its field, saves a TIN masked; the dashboard lists the partner held back and the export', async () => {
    page.setDefaultTimeout(5000);
    const account = await admin('POST', '/accounts', { email: 'owner@northwind.example', password: 'tax owner password 123' });
    const program = await admin('POST', '/programs', { account_id: account.id, name: 'Northwind Coffee', domain: 'northwind.example', commission_type: 'percent', commission_rate: 20 });
    const apiKey = (await admin('POST', `/programs/${program.id}/keys`)).api_key;
    await admin('PATCH', `/programs/${program.id}/payout-settings`, { hold_days: 0 });
    await admin('PATCH', `/programs/${program.id}/tax-settings`, { tax_details_required: true, tax_thresholds_cents: { USD: 60_000, EUR: 50_000 } });
    const partners: Record<string, { id: number; affiliateUrl: string }> = {};
    const people: [string, string][] = [['Ana Lopez', 'ana@creators.example'], ['Ben Okafor', 'ben@creators.example'], ['Chloé Martin', 'chloe@creators.example'], ['Dev Patel', 'dev@creators.example']];
    for (const [name, email] of people) {
      const made = await admin('POST', `/programs/${program.id}/partners`, { name, email });
      const code = name.split(' ')[0]!.toLowerCase().replace('é', 'e');
      await admin('POST', `/programs/${program.id}/links`, { partner_id: made.id, short_link: code });
      await admin('PATCH', `/programs/${program.id}/partners/${made.id}/payout-details`, { payout_method: 'paypal', payout_reference: email.replace('creators', 'paypal') });
      await api.pool.query('UPDATE partners SET invited_at = now() WHERE id = $1', [made.id]);
      partners[name] = { id: made.id, affiliateUrl: `https://northwind.example/?aff=${code}` };
    }
    const shop = { apiKey };
    await apiSale(api, { ...shop, affiliateUrl: partners['Ana Lopez']!.affiliateUrl }, 250_000);
    await apiSale(api, { ...shop, affiliateUrl: partners['Ben Okafor']!.affiliateUrl }, 400_000);
    await apiSale(api, { ...shop, affiliateUrl: partners['Chloé Martin']!.affiliateUrl }, 300_000, { currency: 'EUR' });
    const refunded = await apiSale(api, { ...shop, affiliateUrl: partners['Dev Patel']!.affiliateUrl }, 90_000);
    await apiSale(api, { ...shop, affiliateUrl: partners['Dev Patel']!.affiliateUrl }, 60_000, { currency: 'EUR' });
    await apiRefund(api, shop, refunded.transactionId, 30_000);
    await admin('POST', `/programs/${program.id}/commissions/bulk`, { action: 'approve', filter: {} });
    const run = await admin('POST', `/programs/${program.id}/payouts/run`);
    expect(run.missing_tax_details.map((m: { partner_name: string; amount_cents: number; currency: string }) => [m.partner_name, m.currency, m.amount_cents]).sort()).toEqual([
      ['Ben Okafor', 'USD', 80_000],
      ['Chloé Martin', 'EUR', 60_000],
    ]);

    // The brand: the Payouts page lists who waits for tax details; the tax page sets the threshold and offers the export.
    await cookie('affix_dashboard', "INSERT INTO dashboard_sessions (token_hash, account_id, expires_at) VALUES ($1, $2, now() + interval '1 hour')", account.id, '/dashboard');
    await page.goto(`${api.url}/dashboard/programs/${program.id}/payouts`);
    expect(await page.locator('#missing-tax-details tbody tr').evaluateAll((trs) => trs.map((tr) => (tr.querySelector('td')?.textContent ?? '').trim()))).toEqual(['Ben Okafor', 'Chloé Martin']);
    await page.locator('#missing-tax-details').scrollIntoViewIfNeeded();
    await checkedAtBothWidths('dashboard-payouts-missing-tax-details');
    await page.getByRole('button', { name: 'Ask Ben Okafor for tax details' }).click();
    expect(await textOf('.flash')).toBe('Reminders queued: each partner gets a link to add their tax details (at most one a day).');
    expect((await api.pool.query("SELECT to_email FROM mail_outbox WHERE kind = 'tax_details_reminder'")).rows).toEqual([{ to_email: 'ben@creators.example' }]);
    await page.goto(`${api.url}/dashboard/programs/${program.id}/payouts/tax`);
    expect(await page.getByLabel('Threshold in USD per calendar year (like 600.00; empty for none)').inputValue()).toBe('600.00');
    await page.getByLabel('Threshold in EUR per calendar year (like 50.00; empty for none)').fill('fifty');
    await submitWithKeyboard(page, 'Save tax settings');
    expect(await textOf('#tax_threshold_EUR-error')).toBe('Give an amount in EUR, like 50.00, or leave it empty.');
    expect(await page.locator('#tax_threshold_EUR').inputValue()).toBe('fifty');
    expect(await page.locator('.error-summary').count()).toBe(1);
    await checkedAtBothWidths('dashboard-tax-settings-refused');

    // Ben, in the portal: an empty form is refused, each problem beside its field.
    await cookie('affix_portal', "INSERT INTO partner_sessions (token_hash, email, expires_at) VALUES ($1, $2, now() + interval '1 hour')", 'ben@creators.example', '/portal');
    await page.goto(`${api.url}/portal/programs/${partners['Ben Okafor']!.id}`);
    await page.getByRole('link', { name: 'Your tax details' }).click();
    expect(page.url()).toBe(`${api.url}/portal/tax-details`);
    await submitWithKeyboard(page, 'Save tax details');
    expect(await textOf('#legal_name-error')).toBe('Give your legal name (or your business’s) as on your tax return.');
    expect(await textOf('#country-error')).toBe('Choose the country you live in (or your business is based in).');
    expect(await textOf('#address-error')).toBe('Give your address (street, postal code and city).');
    expect(await textOf('#us_person-error')).toBe('Say whether you are a US person (a US citizen, resident or business).');
    expect(await page.locator('#legal_name').getAttribute('aria-describedby')).toBe('legal_name-error');
    await checkedAtBothWidths('portal-tax-details-refused');

    // A US person with an SSN that cannot be: said beside it, and the digits typed are not sent back.
    await page.getByLabel('Legal name (yours, or your business’s, as on your tax return)').fill('Ben Okafor');
    await page.getByLabel('Country where you live (or your business is based)').selectOption('US');
    await page.getByLabel('Address (street, postal code and city; one per line)').fill('200 Pine St\nSan Francisco, CA 94104');
    await page.getByLabel('Yes, I am a US person').check();
    await page.getByLabel('SSN (Social Security number)').check();
    await page.getByLabel('TIN (9 digits, like 123-45-6789 or 12-3456789)').fill('666-12-3456');
    await submitWithKeyboard(page, 'Save tax details');
    expect(await textOf('#tin-error')).toBe('This is not a valid SSN: check the digits.');
    expect(await page.locator('#tin').inputValue()).toBe('');
    expect(await page.content()).not.toContain('666-12-3456');
    expect(await page.locator('#legal_name').inputValue()).toBe('Ben Okafor');

    // Saved: shown masked, never in full; shared with the program he ticks (nothing is ticked until he does).
    await page.getByLabel('TIN (9 digits, like 123-45-6789 or 12-3456789)').fill('123-45-6789');
    const share = page.getByLabel('Share with Northwind Coffee (northwind.example)');
    expect(await share.isChecked()).toBe(false);
    await share.check();
    await submitWithKeyboard(page, 'Save tax details');
    expect(await textOf('.flash')).toBe('Tax details saved.');
    expect(await textOf('#tax-status')).toContain('US person, SSN •••-••-6789');
    expect(await page.content()).not.toContain('123-45-6789');
    expect(await page.content()).not.toContain('123456789');
    expect(await page.getByLabel('TIN (9 digits; leave empty to keep •••-••-6789)').inputValue()).toBe('');
    expect(await page.getByLabel('Share with Northwind Coffee (northwind.example)').isChecked()).toBe(true);
    await checkedAtBothWidths('portal-tax-details');
    await page.locator('#share-with').scrollIntoViewIfNeeded();
    await checkedAtBothWidths('portal-tax-details-shares');

    // The next run pays him.
    const again = await admin('POST', `/programs/${program.id}/payouts/run`);
    expect(again.payouts.map((p: { partner_id: number; amount_cents: number }) => [p.partner_id, p.amount_cents])).toEqual([[partners['Ben Okafor']!.id, 80_000]]);
  }, 120_000);
});
