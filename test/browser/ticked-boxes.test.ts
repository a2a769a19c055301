// Every form with checkboxes, with several of them ticked, in Chromium: the bulk bars of the
// Partners, Applications and Payouts pages (boxes of one name: a list by design), a new group's
// three boxes, a webhook endpoint's event boxes, and the mail settings of the dashboard and the
// portal. Each shows its success and what it says is stored.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { mailPreferences, saveMailPreferences } from '../../src/app/outbound/mail.js';
import { adminOf, type BrowserAppWithMail, browserAppWithMail, hasChromium, signInToDashboard, submitWithKeyboard, textOf } from '../support/browser.js';
import { type TestApi, bearer, trackClick } from '../support/harness.js';

let api: TestApi;
let page: Page;
let smtp: BrowserAppWithMail['smtp'];
browserAppWithMail('ticked-boxes-key-0123456789', (opened) => ({ api, page, smtp } = opened));

const admin = adminOf(() => api);
const submit = (name: string) => submitWithKeyboard(page, name);
/** The page's success message, or (none shown) what the page says instead. */
const flash = async () => ((await page.getByRole('status').count()) ? textOf(page.getByRole('status')) : `no success shown; the page says: ${await textOf(page.locator('main'))}`);
const column = async (sql: string, params: unknown[]) => (await api.pool.query(sql, params)).rows.map((row) => Object.values(row)[0]);

describe.skipIf(!hasChromium)('forms with several ticked boxes', () => {
  it('bulk bars, a group, an endpoint and both mail settings save what was ticked', async () => {
    page.setDefaultTimeout(5000);
    const owner = 'owner@ticks.example';
    const account = await admin('POST', '/accounts', { email: owner, password: 'correct horse battery' });
    const program = await admin('POST', '/programs', { account_id: account.id, name: 'Tick Shop', domain: 'shop.example.com', commission_type: 'percent', commission_rate: 10 });
    const base = `${api.url}/dashboard/programs/${program.id}`;
    const key = (await admin('POST', `/programs/${program.id}/keys`)).api_key;
    const partner = async (name: string, email?: string) => (await admin('POST', `/programs/${program.id}/partners`, { name, ...(email ? { email } : {}) })).id as number;
    const [ana, ben, cy] = [await partner('Ana', 'ana@ticks.example'), await partner('Ben'), await partner('Cy')];

    await signInToDashboard(page, api.url, owner, 'correct horse battery');

    // The Partners page's bulk bar: two partners ticked, archived; the third left as it was.
    await page.goto(`${base}/partners`);
    await page.getByLabel('Select Ben', { exact: true }).check();
    await page.getByLabel('Select Cy', { exact: true }).check();
    await page.locator('#action').selectOption('archive');
    await submit('Apply to the selected partners');
    expect(await flash()).toBe('Archive: 2 changed.');
    expect(await column('SELECT status FROM partners WHERE id = ANY ($1) ORDER BY id', [[ana, ben, cy]])).toEqual(['approved', 'archived', 'archived']);

    // The Applications page's bulk bar: two applicants ticked, approved.
    await admin('PATCH', `/programs/${program.id}/application-settings`, { applications_open: true, slug: 'tick-shop' });
    for (const [name, ip] of [['Dee', '203.0.113.41'], ['Eve', '203.0.113.42']] as const) {
      const applied = await api.request('POST', '/apply/tick-shop', {
        raw: new URLSearchParams({ name, email: `${name.toLowerCase()}@ticks.example`, accept_terms: 'on' }).toString(),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': ip },
      });
      expect(applied.status).toBe(200);
    }
    await page.goto(`${base}/applications`);
    await page.getByLabel('Select Dee', { exact: true }).check();
    await page.getByLabel('Select Eve', { exact: true }).check();
    await page.locator('#app_action').selectOption('approve');
    await submit('Apply to the selected applications');
    expect(await flash()).toBe('Approve: 2 changed.');
    expect(await column("SELECT status FROM partners WHERE program_id = $1 AND name IN ('Dee', 'Eve') ORDER BY name", [program.id])).toEqual(['approved', 'approved']);

    // The Payouts page's bulk bar: two pending commissions ticked, approved with one reason.
    await admin('POST', `/programs/${program.id}/links`, { partner_id: ana, short_link: 'ana-ticks' });
    for (const txn of ['tick_t1', 'tick_t2']) {
      const click = await trackClick(api, 'https://shop.example.com/?aff=ana-ticks');
      const sale = await api.request('POST', '/api/v1/track/sale', { body: { transaction_id: txn, amount_cents: 10_000, click_id: click, customer_key: `c_${txn}` }, headers: bearer(key) });
      expect(sale.status).toBe(200);
    }
    const commissions = (await column('SELECT id FROM commissions WHERE program_id = $1 ORDER BY id', [program.id])).map(Number);
    expect(commissions).toHaveLength(2);
    await page.goto(`${base}/payouts?stage=pending`);
    for (const id of commissions) await page.getByLabel(`Select commission ${id}`).check();
    await page.getByLabel('Reason (optional; kept in the ledger)').fill('checked in the shop');
    await submit('Apply to the selected commissions');
    // Both are still in their hold: the override is asked first, and nothing changed yet.
    expect(await textOf(page.locator('#hold-question'))).toContain('2 of these commissions are still in their hold period');
    await page.getByRole('button', { name: /^Approve all 2 .*overriding the hold$/ }).click();
    await page.waitForURL(/done=bulk/);
    expect(await flash()).toBe('Approve: 2 changed.');
    expect(await column('SELECT stage FROM commissions WHERE id = ANY ($1) ORDER BY id', [commissions])).toEqual(['approved', 'approved']);

    // A new group with its three boxes ticked.
    await page.goto(`${base}/groups`);
    const newGroup = page.locator('#new-group');
    await page.locator('#new_name').fill('Creators');
    await page.locator('#new_slug').fill('creators');
    await page.locator('#new_commission_rate').fill('15');
    await newGroup.getByLabel('Partners may create their own links').check();
    await newGroup.getByLabel('Its application page takes applications').check();
    await newGroup.getByLabel('Approve applicants at once unless a risk signal is seen').check();
    await submit('Create group');
    expect(await flash()).toBe('Group saved.');
    const [group] = (await api.pool.query('SELECT partners_can_create_links, applications_open, auto_approve FROM partner_groups WHERE program_id = $1', [program.id])).rows;
    expect(group).toEqual({ partners_can_create_links: true, applications_open: true, auto_approve: true });

    // The dashboard's mail settings: all off, then three of the four ticked.
    await saveMailPreferences(api.pool, owner, 'manager', []);
    await page.goto(`${api.url}/dashboard/account`);
    const managerBoxes = page.locator('#mail input[type=checkbox]');
    expect(await managerBoxes.count()).toBe(4);
    await page.getByLabel('New partner applications').check();
    await page.getByLabel('Commissions held for fraud review').check();
    await page.getByLabel('Payout run ready to pay').check();
    await submit('Save mail settings');
    expect(await flash()).toBe('Mail settings saved.');
    expect((await mailPreferences(api.pool, owner, 'manager')).map((p) => [p.kind, p.on])).toEqual([
      ['new_application', true],
      ['commission_held', true],
      ['payout_run_ready', true],
      ['daily_summary', false],
    ]);

    // The portal's mail settings: every box it shows (one kind a partner may turn off today) ticked.
    await saveMailPreferences(api.pool, 'ana@ticks.example', 'partner', []);
    await admin('POST', `/programs/${program.id}/partners/${ana}/invite`);
    await expect.poll(() => smtp.lastLink('ana@ticks.example'), { timeout: 5000 }).not.toBeNull();
    await page.goto(smtp.lastLink('ana@ticks.example')!.replace(/^https?:\/\/[^/]+/, api.url));
    await submit('Sign in');
    const partnerBoxes = page.locator('#mail input[type=checkbox]');
    const shown = await partnerBoxes.count();
    expect(shown).toBeGreaterThanOrEqual(1);
    for (let i = 0; i < shown; i += 1) await partnerBoxes.nth(i).check();
    await submit('Save mail settings');
    expect(await flash()).toBe('Mail settings saved.');
    expect((await mailPreferences(api.pool, 'ana@ticks.example', 'partner')).map((p) => [p.kind, p.on])).toEqual([['commission_digest', true], ['payout_details_reminder', true], ['tax_details_reminder', true]]);

    // A webhook endpoint with two of its event boxes unticked: the others are stored (last: no
    // event of this test is sent to it afterwards).
    await page.goto(`${base}/webhooks`);
    await page.getByLabel('URL (https)').fill('https://hooks.ticks.example/affix');
    const events = page.locator('#new-endpoint input[type=checkbox]');
    const names = await events.evaluateAll((boxes) => boxes.map((box) => (box as HTMLInputElement).name.replace(/^event_/, '')));
    expect(names.length).toBeGreaterThanOrEqual(4);
    await events.nth(0).uncheck();
    await events.nth(2).uncheck();
    await submit('Add endpoint');
    expect(await textOf(page.locator('#new-secret-value'))).toMatch(/^whsec_/);
    expect(await column('SELECT event_types FROM webhook_endpoints WHERE program_id = $1', [program.id])).toEqual([names.filter((_, i) => i !== 0 && i !== 2)]);
  }, 90_000);
});
