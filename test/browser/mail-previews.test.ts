// Issue 44, item 4: the dashboard previews every mail the program sends, with sample data — the
// brand's name and colour, its links host, the approval mail's link and QR code — as text and as
// HTML in a sandboxed frame (no script runs there), reached from the program's Settings.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { adminOf, axeAudit, browserAppWithMail, hasChromium, screenshotsAt, textOf as visibleText } from '../support/browser.js';
import type { TestApi } from '../support/harness.js';
import { seedPartnerMoney, signIn } from '../support/partners-seed.js';

let api: TestApi;
let page: Page;
browserAppWithMail('mail-previews-browser-key-0123456789', (opened) => ({ api, page } = opened));
const admin = adminOf(() => api);
const textOf = (selector: string) => visibleText(page.locator(selector));

const TEMPLATES = [
  'Sign-in link', 'Invitation to the portal', 'Application received', 'Application approved (with the link and its QR code)', 'Application rejected',
  'Daily summary of commissions', 'Add your payout details', 'Add your tax details', 'Payout sent', 'Payout failed or returned', 'Bounty awarded', 'Bounty submission approved', 'Bounty submission rejected', 'Removed from the program', 'New application (to managers)',
  'Commission held for review (to managers)', 'Payout run ready to pay (to managers)', "Yesterday's numbers (to managers)", 'Webhook endpoint turned off (to managers)', 'Invitation to your team', 'Password reset (to your team)',
];

describe.skipIf(!hasChromium)('mail previews', () => {
  it('every template with sample data and the brand, text beside HTML in a sandboxed frame, from Settings; axe clean at 390 and 1280 px', async () => {
    page.setDefaultTimeout(5000);
    const owner = 'owner@previews.example';
    const { program } = await seedPartnerMoney(api, admin, owner);
    await admin('PATCH', `/programs/${program.id}/brand`, { brand_name: 'Northwind Coffee', accent_color: '#7a3e12', pitch: 'Small-batch coffee, roasted to order.' });
    await api.pool.query("INSERT INTO program_domains (host, program_id, kind) VALUES ('go.northwind.example', $1, 'links')", [program.id]);
    await signIn(page, api.url, owner);

    // From the program's navigation: Settings, then its link to the previews.
    await page.goto(`${api.url}/dashboard/programs/${program.id}`);
    await page.getByRole('navigation', { name: 'Program pages' }).getByRole('link', { name: 'Settings', exact: true }).click({ force: true });
    await page.getByRole('link', { name: 'Mail previews' }).click();
    expect(page.url()).toBe(`${api.url}/dashboard/programs/${program.id}/settings/mail-previews`);
    expect(await page.title()).toBe('Mail previews · Affix');
    // The page is long (a frame per mail): read it once the browser has parsed all of it.
    await expect.poll(() => page.locator('.mail-preview h3').allTextContents()).toEqual(TEMPLATES);
    // Every kind of mail the service sends (written down here) has its preview, once.
    const KINDS = [
      'partner_sign_in', 'partner_invitation', 'application_received', 'application_approved', 'application_rejected', 'commission_digest',
      'payout_sent', 'payout_failed', 'bounty_awarded', 'bounty_approved', 'bounty_rejected', 'partner_banned', 'payout_details_reminder', 'tax_details_reminder', 'member_invitation', 'password_reset',
      'new_application', 'commission_held', 'payout_run_ready', 'endpoint_disabled', 'daily_summary',
    ];
    expect(await page.locator('.mail-preview').evaluateAll((els) => els.map((e) => e.id.replace(/^mail-/, '')).sort())).toEqual([...KINDS].sort());

    // The approval mail: the sample partner's link on the links host, the brand, the QR code shown.
    const approved = page.locator('#mail-application_approved');
    expect(await approved.locator('dd').nth(1).textContent()).toBe('Northwind Coffee');
    expect(await approved.locator('pre').textContent()).toContain('Your referral link: https://go.northwind.example/alex\n');
    const frame = page.frameLocator('#mail-application_approved iframe');
    expect(await frame.locator('strong').first().textContent()).toBe('Northwind Coffee');
    expect(await frame.locator('a[href="https://go.northwind.example/alex"]').count()).toBe(1);
    const qr = frame.locator('img[alt="QR code of your referral link https://go.northwind.example/alex"]');
    await page.locator('#mail-application_approved iframe').scrollIntoViewIfNeeded();
    await expect.poll(() => qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(360);
    // Every frame is sandboxed (no script, no forms: only its images load with the session) and made from srcdoc.
    const frames = await page.locator('.mail-preview iframe').evaluateAll((els) => els.map((e) => [e.getAttribute('sandbox'), e.hasAttribute('srcdoc'), e.getAttribute('title')]));
    expect(frames).toHaveLength(TEMPLATES.length);
    for (const [sandbox, srcdoc, title] of frames) expect([sandbox, srcdoc, typeof title]).toEqual(['allow-same-origin', true, 'string']);
    // The digest in two currencies with its next steps; the removal mail with what the partner can do.
    expect(await page.locator('#mail-commission_digest pre').textContent()).toContain('- 3 commissions: $45.00\n- 1 commission: €12.00');
    expect(await page.locator('#mail-partner_banned pre').textContent()).toContain('What you can do:');
    // A non-essential mail shows its unsubscribe footer, with a sample token.
    expect(await textOf('#mail-commission_digest pre')).toContain('/mail/unsubscribe?token=sample-token');

    // Another account's program: the same 404 as none.
    const other = await admin('POST', '/accounts', { email: 'other@previews.example' });
    const theirs = await admin('POST', '/programs', { account_id: other.id, name: 'Not Yours', domain: 'other.example.com', commission_type: 'percent', commission_rate: 10 });
    const foreign = await page.goto(`${api.url}/dashboard/programs/${theirs.id}/settings/mail-previews`);
    expect(foreign!.status()).toBe(404);

    // The Brand page links here, and sets what partners see of a referred customer (issue 44, item 3).
    await page.goto(`${api.url}/dashboard/programs/${program.id}/brand`);
    expect(await page.getByRole('link', { name: 'see every mail' }).getAttribute('href')).toBe(`/dashboard/programs/${program.id}/settings/mail-previews`);
    await page.getByLabel('What partners see of each customer they referred').selectOption('name');
    await page.getByRole('button', { name: 'Save the brand' }).focus();
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    expect((await api.pool.query('SELECT referral_customer_label FROM programs WHERE id = $1', [program.id])).rows[0].referral_customer_label).toBe('name');
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      const result = await axeAudit(page);
      expect(result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${width}: ${v.id}`)).toEqual([]);
    }
    await screenshotsAt(page, 'program-brand-customer-label');

    await page.goto(`${api.url}/dashboard/programs/${program.id}/settings/mail-previews`);
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      const result = await axeAudit(page);
      expect(result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${width}: ${v.id}`)).toEqual([]);
    }
    await screenshotsAt(page, 'mail-previews');
  }, 120_000);
});
