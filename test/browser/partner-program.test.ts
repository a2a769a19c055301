// The partner program in Chromium: visitors apply on the public page with the keyboard only
// (390 and 1280 px); the manager approves one into a group with a higher rate and the partner's
// next sale is paid at it; the manager bans the partner (link 410, pending commission
// rejected), then lifts the ban: exactly the banned rows come back, a commission rejected
// earlier by hand stays rejected. The new pages are checked for sideways scrolling.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { adminOf, type BrowserAppWithMail, browserAppWithMail, hasChromium, screenshotsAt, signInToDashboard, submitWithKeyboard, textOf } from '../support/browser.js';
import { type TestApi, bearer, trackClick } from '../support/harness.js';

let api: TestApi;
let page: Page;
let smtp: BrowserAppWithMail['smtp'];
browserAppWithMail('partner-program-key-0123456789', (opened) => ({ api, page, smtp } = opened));

const admin = adminOf(() => api);
const submit = (name: string) => submitWithKeyboard(page, name);
const shot = (name: string) => screenshotsAt(page, name);
const noSidewaysScroll = async (width: number) => {
  const { scroll, inner } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
  expect({ url: page.url(), width, scroll: Math.min(scroll, inner) }).toEqual({ url: page.url(), width, scroll });
};

/** Applies with Tab, typing and Space only, as a keyboard user would. */
async function applyWithKeyboard(url: string, width: number, who: { name: string; email: string; website: string }) {
  await page.setViewportSize({ width, height: 900 });
  await page.goto(url);
  await noSidewaysScroll(width);
  const focused = () => page.evaluate(() => document.activeElement?.getAttribute('name') ?? document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.tagName);
  // The first Tab reaches the skip link; it jumps past the header.
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to the content');
  // Then the page's links, then the form's fields in order.
  while ((await focused()) !== 'name') await page.keyboard.press('Tab');
  await page.keyboard.type(who.name);
  await page.keyboard.press('Tab');
  expect(await focused()).toBe('email');
  await page.keyboard.type(who.email);
  await page.keyboard.press('Tab');
  expect(await focused()).toBe('answer_your_website');
  await page.keyboard.type(who.website);
  await page.keyboard.press('Tab');
  expect(await focused()).toBe('answer_audience_size');
  await page.keyboard.press('ArrowDown');
  // The link code of their own (optional; left empty: a random one).
  await page.keyboard.press('Tab');
  expect(await focused()).toBe('code');
  await page.keyboard.press('Tab');
  expect(await focused()).toBe('Program terms');
  await page.keyboard.press('Tab');
  expect(await focused()).toBe('accept_terms');
  await page.keyboard.press('Space');
  await page.keyboard.press('Tab');
  const navigation = page.waitForNavigation({ waitUntil: 'load' });
  await page.keyboard.press('Enter');
  await navigation;
  expect(await textOf(page.getByRole('status'))).toBe('Thank you: your application was received. The brand will email you about it.');
  await page.setViewportSize({ width: 1280, height: 900 });
}

describe.skipIf(!hasChromium)('the partner program', () => {
  it('apply, approve into a group, earn at its rate, ban, lift', async () => {
    page.setDefaultTimeout(5000);
    const account = await admin('POST', '/accounts', { email: 'owner@program.example', password: 'correct horse battery' });
    const program = await admin('POST', '/programs', { account_id: account.id, name: 'Program Shop', domain: 'shop.example.com', commission_type: 'percent', commission_rate: 10 });
    const base = `${api.url}/dashboard/programs/${program.id}`;
    const key = (await admin('POST', `/programs/${program.id}/keys`)).api_key;
    const sale = async (link: string, txn: string, cents: number) => {
      const click = await trackClick(api, `https://shop.example.com/?aff=${link}`);
      const reply = await api.request('POST', '/api/v1/track/sale', { body: { transaction_id: txn, amount_cents: cents, click_id: click, customer_key: `c_${txn}` }, headers: bearer(key) });
      expect(reply.status).toBe(200);
      return reply.body;
    };

    // The manager signs in and sets up the application page and a group, in the dashboard.
    await signInToDashboard(page, api.url, 'owner@program.example', 'correct horse battery');
    await page.goto(`${base}/applications`);
    await page.getByLabel("Take applications on the program's page").check();
    await page.getByLabel('Page address (letters, digits and -)').fill('program-shop');
    await page.locator('#terms_text').fill('Promote honestly. No paid search on our name.');
    await submit('Save the application page');
    await expect.poll(() => textOf(page.getByRole('status'))).toBe('Application page saved.');
    // The questions, in the Brand page's editor: one row at a time.
    await page.getByRole('link', { name: 'Edit the questions' }).click();
    for (const [label, type, options, required] of [['Your website', 'Web address', '', true], ['Audience size', 'Choice from a list', '<1k\n1k-10k\n>10k', false]] as const) {
      await page.locator('#new_label').fill(label);
      await page.locator('#new_type').selectOption({ label: type });
      if (options) await page.locator('#new_options').fill(options);
      if (required) await page.locator('#new_required').check();
      await submit('Add the question');
      await expect.poll(() => textOf(page.getByRole('status'))).toBe('Questions saved: the application page asks them in this order.');
    }
    await page.goto(`${base}/groups`);
    await page.locator('#new_name').fill('Creators');
    await page.locator('#new_slug').fill('creators');
    await page.locator('#new_commission_rate').fill('30');
    await page.locator('#new_hold_days').fill('14');
    await page.locator('#new-group').getByLabel('Its application page takes applications').check();
    await submit('Create group');
    await expect.poll(() => textOf(page.getByRole('status'))).toBe('Group saved.');
    expect(await textOf(page.locator('#groups li.card'))).toContain('30% of the first paid sale; approved after 14 days · takes applications');
    await shot('program-groups');

    // Two visitors apply with the keyboard: one on a phone, one on a desktop.
    await page.goto(`${api.url}/dashboard/logout`).catch(() => undefined);
    await applyWithKeyboard(`${api.url}/apply/program-shop/creators`, 390, { name: 'Cleo Creator', email: 'cleo@creators.example', website: 'https://cleo.example' });
    await applyWithKeyboard(`${api.url}/apply/program-shop`, 1280, { name: 'Dan Desktop', email: 'dan@desk.example', website: 'https://dan.example' });
    await page.goto(`${api.url}/apply/program-shop/creators`);
    await shot('apply');

    // The manager reviews: approves Cleo into Creators from the Applications page.
    await page.goto(`${base}/applications`);
    const cards = page.locator('#applications li.card');
    await expect.poll(() => cards.count()).toBe(2);
    expect((await cards.filter({ hasText: 'Cleo Creator' }).innerText()).replace(/\s+/g, ' ')).toContain('Your website https://cleo.example Audience size <1k');
    await shot('program-applications');
    await cards.filter({ hasText: 'Cleo Creator' }).getByLabel('Select').check();
    await page.locator('#app_action').selectOption('approve');
    await page.locator('#app_group_id').selectOption({ label: 'Creators' });
    await submit('Apply to the selected applications');
    await expect.poll(() => textOf(page.getByRole('status'))).toBe('Approve: 1 changed.');
    // The approved applicant got a link and a portal invitation.
    await expect.poll(() => smtp.lastLink('cleo@creators.example'), { timeout: 5000 }).not.toBeNull();
    const cleo = (await api.pool.query("SELECT id FROM partners WHERE program_id = $1 AND email = 'cleo@creators.example'", [program.id])).rows[0].id;
    const link = (await api.pool.query('SELECT short_link FROM referral_links WHERE partner_id = $1', [cleo])).rows[0].short_link;

    // Her next sale is paid at the group's 30 %, not the program's 10 %.
    expect((await sale(link, 'pp_first', 10_000)).commission_amount_cents).toBe(3000);
    const pending = await sale(link, 'pp_second', 5_000);
    const byHand = await sale(link, 'pp_third', 2_000);
    await api.pool.query(`UPDATE commissions SET stage = 'held', hold_reasons = '{self_referral}' WHERE id = $1`, [byHand.commission_id]);
    await admin('POST', `/programs/${program.id}/commissions/${byHand.commission_id}/reject`, { reason: 'her own purchase' });

    // The partner page: the manager bans her.
    await page.goto(`${base}/partners/${cleo}`);
    expect(await textOf(page.locator('#profile'))).toContain('Paid on: 30% of the first paid sale (group Creators), approved after 14 days.');
    await shot('program-partner');
    await page.locator('#actions').getByText('Ban this partner…').click();
    await page.locator('#ban_reason').fill('cookie stuffing');
    await submit('Ban Cleo Creator');
    await expect.poll(() => textOf(page.getByRole('status'))).toBe('Ban: 1 changed.');
    expect(await textOf(page.locator('#profile'))).toContain('Banned on');
    const click = () => api.request('POST', '/api/v1/track/click', { body: { affiliate_url: `https://shop.example.com/?aff=${link}` } });
    expect((await click()).status).toBe(410);
    const stage = async (id: number) => (await api.pool.query('SELECT stage FROM commissions WHERE id = $1', [id])).rows[0].stage;
    expect(await stage(pending.commission_id)).toBe('rejected');

    // Lifting the ban: exactly the banned rows come back.
    await submit('Lift the ban on Cleo Creator');
    await expect.poll(() => textOf(page.getByRole('status'))).toBe('Lift the ban: 1 changed.');
    expect((await click()).status).toBe(200);
    expect(await stage(pending.commission_id)).toBe('pending');
    expect(await stage(byHand.commission_id)).toBe('rejected');
    expect(await textOf(page.locator('#history'))).toMatch(/banned \(cookie stuffing\) — lifted/);

    // Approvals in bulk from the Payouts page: one reason for the batch.
    await page.goto(`${base}/payouts?stage=pending`);
    await page.getByLabel(`Select commission ${pending.commission_id}`).check();
    await page.getByLabel('Every awaiting approval commission, not only the selected').check();
    await page.getByLabel('Reason (optional; kept in the ledger)').fill('checked in Stripe');
    await submit('Apply to the selected commissions');
    // Still in their hold: asked first.
    await page.getByRole('button', { name: /^Approve all 2 .*overriding the hold$/ }).click();
    await page.waitForURL(/done=bulk/);
    await expect.poll(() => textOf(page.getByRole('status'))).toBe('Approve: 2 changed.');
    expect(await stage(pending.commission_id)).toBe('approved');

    // The partner list: search and the new pages at both widths.
    await page.goto(`${base}/partners?q=cleo`);
    expect(await page.locator('#partners tbody td[data-label=Partner] strong').allTextContents()).toEqual(['Cleo Creator']);
    await page.goto(`${base}/partners`);
    await shot('program-partners');
    await page.goto(`${base}/partners/import`);
    await shot('program-import');
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      for (const path of ['/partners', '/applications', '/groups', `/partners/${cleo}`, '/partners/import']) {
        await page.goto(`${base}${path}`);
        await noSidewaysScroll(width);
      }
    }
  }, 60_000);
});
