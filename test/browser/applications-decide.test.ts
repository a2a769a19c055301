// Issue 43, item 3: each application is approved in one click, or rejected with a reason asked
// for beside it, and its answers read in the order the form asked them.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { adminOf, axeAudit, browserAppWithMail, hasChromium, screenshotsAt, signInToDashboard, textOf } from '../support/browser.js';
import type { TestApi } from '../support/harness.js';

let api: TestApi;
let page: Page;
let smtp: { lastLink: (to: string) => string | null };
browserAppWithMail('applications-decide-key-0123456789abcdef', (opened) => ({ api, page, smtp } = opened));
const admin = adminOf(() => api);

/** Serious and critical axe-core violations of the page as it is now. */
const seriousViolations = async () =>
  (await axeAudit(page)).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);

describe.skipIf(!hasChromium)('deciding applications', () => {
  it('approves in one click, rejects with a reason, and shows answers in the form order', async () => {
    page.setDefaultTimeout(5000);
    const owner = 'owner@decide.example';
    const account = await admin('POST', '/accounts', { email: owner, password: 'decide owner password' });
    const program = await admin('POST', '/programs', { account_id: account.id, name: 'Decide Shop', domain: 'shop.example.com', commission_type: 'percent', commission_rate: 20 });
    // The questions' keys are of different lengths: stored JSON would put "ig" first.
    await admin('PATCH', `/programs/${program.id}/application-settings`, {
      applications_open: true,
      slug: 'decide-shop',
      terms_text: 'Promote honestly.',
      field_lines: 'website | Your website | url | required\naudience | Audience size | select: <1k, 1k-10k, >10k\nig | Instagram handle | text',
    });
    for (const [name, email, ig] of [['Bo Berg', 'bo@applicant.example', '@bo'], ['Cleo Cruz', 'cleo@applicant.example', '@cleo'], ['Dan Dorn', 'dan@applicant.example', '@dan']]) {
      const reply = await api.request('POST', '/apply/decide-shop', {
        raw: new URLSearchParams({ name: name!, email: email!, answer_website: `https://${name!.split(' ')[0]!.toLowerCase()}.example`, answer_audience: '1k-10k', answer_ig: ig!, accept_terms: 'on' }).toString(),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      });
      expect(reply.status).toBe(200);
    }
    await signInToDashboard(page, api.url, owner, 'decide owner password');
    const base = `${api.url}/dashboard/programs/${program.id}`;
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${base}/applications`);

    const card = (name: string) => page.locator('#applications li.card', { hasText: name });
    // The answers in the form's order.
    expect(await card('Bo Berg').locator('dl.answers dt').allTextContents()).toEqual(['Your website', 'Audience size', 'Instagram handle']);
    // No word of bans on the Applications page.
    expect((await page.locator('#applications').innerText()).toLowerCase()).not.toContain('ban');
    await screenshotsAt(page, 'applications-decide');

    // One click approves.
    await card('Bo Berg').getByRole('button', { name: 'Approve Bo Berg' }).click();
    expect(await textOf(page.getByRole('status'))).toBe('Application approved: the partner has a referral link, and an invitation to the portal if they gave an email.');
    const status = async (email: string) => (await api.pool.query('SELECT status FROM partners WHERE program_id = $1 AND email = $2', [program.id, email])).rows[0].status;
    expect(await status('bo@applicant.example')).toBe('approved');
    expect(await page.locator('#applications li.card', { hasText: 'Bo Berg' }).count()).toBe(0);
    await expect.poll(() => smtp.lastLink('bo@applicant.example'), { timeout: 5000 }).not.toBeNull();

    // Rejecting asks for the reason, beside the field of that application.
    await card('Cleo Cruz').getByText('Reject Cleo Cruz…').click();
    await card('Cleo Cruz').getByRole('button', { name: 'Reject Cleo Cruz' }).click();
    expect(await status('cleo@applicant.example')).toBe('applied');
    expect(await card('Cleo Cruz').locator('details.reject').getAttribute('open')).not.toBeNull();
    expect(await textOf(card('Cleo Cruz').locator('p.error'))).toBe('Give a reason.');
    expect(await textOf(page.locator('.error-summary'))).toContain('Give a reason.');
    expect(await seriousViolations()).toEqual([]); // applications with a refused reason
    await screenshotsAt(page, 'applications-decide-reason');
    await card('Cleo Cruz').getByLabel('Reason (the applicant reads it)').fill('Your audience is outside our market.');
    await card('Cleo Cruz').getByRole('button', { name: 'Reject Cleo Cruz' }).click();
    expect(await textOf(page.getByRole('status'))).toBe('Application rejected: the applicant is told, with your reason.');
    expect(await status('cleo@applicant.example')).toBe('rejected');
    const decided = (await api.pool.query("SELECT reason FROM partner_applications WHERE program_id = $1 AND status = 'rejected'", [program.id])).rows;
    expect(decided).toEqual([{ reason: 'Your audience is outside our market.' }]);
    // Dan is left to decide.
    expect(await page.locator('#applications li.card').count()).toBe(1);
  }, 120_000);
});
